import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** A full-page status answer (403, 404) with its title, a hint and the way back home. */
export function StatusPage({
  status,
  testId,
  title,
  hint,
}: {
  status: '403' | '404';
  testId: string;
  title: string;
  hint: string;
}) {
  const { t } = useTranslation('shell');
  return (
    <div className="tw-center-page" data-testid={testId}>
      <Result
        status={status}
        title={title}
        subTitle={hint}
        extra={
          <Link to="/">
            <Button type="primary">{t('notFound.back')}</Button>
          </Link>
        }
      />
    </div>
  );
}

/** Shown for any unknown path: the page does not exist, check the address. */
export function NotFoundPage() {
  const { t } = useTranslation('common');
  return <StatusPage status="404" testId="not-found" title={t('notFound.title')} hint={t('notFound.hint')} />;
}

/** Shown instead of a page the signed-in user's role may not open (the page and its API calls never start). */
export function ForbiddenPage() {
  const { t } = useTranslation('shell');
  return <StatusPage status="403" testId="forbidden" title={t('forbidden.title')} hint={t('forbidden.hint')} />;
}
