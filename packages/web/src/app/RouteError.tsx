import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

/** Last-resort error screen for a route that failed to render or load its code. */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation('shell');
  const message = error instanceof Error ? error.message : String(error ?? '');
  return (
    <div className="tw-center-page" data-testid="route-error">
      <Result
        status="error"
        title={t('status.loadFailed')}
        subTitle={message}
        extra={
          <Button type="primary" onClick={() => window.location.reload()}>
            {t('status.retry')}
          </Button>
        }
      />
    </div>
  );
}
