import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';
import { ErrorScreen } from '../components/ErrorScreen';

/** Last-resort error screen for a route that failed to render or load its code. */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation('shell');
  const message = error instanceof Error ? error.message : String(error ?? '');
  return (
    <ErrorScreen
      testid="route-error"
      title={t('status.loadFailed')}
      detail={message}
      action={
        <Button type="primary" onClick={() => window.location.reload()}>
          {t('status.retry')}
        </Button>
      }
    />
  );
}
