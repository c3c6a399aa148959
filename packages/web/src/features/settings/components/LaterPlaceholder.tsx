import { Card, Empty } from 'antd';
import { useTranslation } from 'react-i18next';

/** Rate limit and model settings arrive in a later release; the tabs stay listed. */
export function LaterPlaceholder({ tab }: { tab: string }) {
  const { t } = useTranslation('settings');
  return (
    <Card data-testid={`settings-placeholder-${tab}`}>
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('later', { name: t(`tab.${tab}`) })} />
    </Card>
  );
}
