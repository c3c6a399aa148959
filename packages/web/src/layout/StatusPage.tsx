import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** A full-page status answer (403, 404) with its title, a hint and the way back home. */
export function StatusPage({ status, testId, title, hint }: { status: '403' | '404'; testId: string; title: string; hint: string }) {
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
