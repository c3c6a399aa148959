import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Shown for any unknown path: the page does not exist, check the address. */
export function NotFound() {
  const { t } = useTranslation(['common', 'shell']);
  return (
    <div className="tw-center-page" data-testid="not-found">
      <Result
        status="404"
        title={t('common:notFound.title')}
        subTitle={t('common:notFound.hint')}
        extra={
          <Link to="/">
            <Button type="primary">{t('shell:notFound.back')}</Button>
          </Link>
        }
      />
    </div>
  );
}
