import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Shown instead of a page the signed-in user's role may not open (the page and its API calls never start). */
export function Forbidden() {
  const { t } = useTranslation('shell');
  return (
    <div className="tw-center-page" data-testid="forbidden">
      <Result
        status="403"
        title={t('forbidden.title')}
        subTitle={t('forbidden.hint')}
        extra={
          <Link to="/">
            <Button type="primary">{t('notFound.back')}</Button>
          </Link>
        }
      />
    </div>
  );
}
