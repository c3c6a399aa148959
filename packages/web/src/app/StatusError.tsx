import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../lib/api';

/** Why the status did not load (server unreachable or answering an error), with a retry. Loaded only when it shows. */
export default function StatusError({
  error,
  retrying,
  onRetry,
}: {
  error: Error;
  retrying: boolean;
  onRetry: () => void;
}) {
  const { t } = useTranslation('shell');
  const unsuccessful = error instanceof ApiFailure && error.status !== 0;
  return (
    <div className="tw-center-page" data-testid="status-error">
      <Result
        status="warning"
        title={unsuccessful ? t('status.connectFailed') : t('status.loadFailed')}
        subTitle={error.message}
        extra={
          <Button type="primary" loading={retrying} onClick={onRetry}>
            {t('status.retry')}
          </Button>
        }
      />
    </div>
  );
}
