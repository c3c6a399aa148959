import { App, Card } from 'antd';
import { useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../../../lib/useIsMobile';
import { RatioJsonSection } from './RatioJsonSection';
import { UnsetModels } from './UnsetModels';
import { VisualRatioEditor } from './VisualRatioEditor';

const TABS = ['json', 'visual', 'unset'] as const;
type PricingTab = (typeof TABS)[number];

/**
 * Model pricing on the operation tab: model ratio settings (JSON), the visual ratio editor and models with
 * no ratio set. Only the open inner tab is mounted, so each one starts from the saved options.
 */
export function PricingSection() {
  const { t } = useTranslation('settings');
  const [tab, setTab] = useState<PricingTab>('json');
  const [version, setVersion] = useState(0);
  const narrow = useIsMobile();
  const { modal } = App.useApp();
  /** Unsaved edits in the visual editor: leaving its tab asks first. */
  const pending = useRef(0);
  const change = (next: PricingTab) => {
    if (tab !== 'visual' || pending.current === 0) return setTab(next);
    modal.confirm({
      title: t('ratio.leaveTitle'),
      content: t('ratio.leaveBody', { count: pending.current }),
      okText: t('ratio.leave'),
      okButtonProps: { danger: true },
      cancelText: t('common:action.cancel'),
      onOk: () => {
        pending.current = 0;
        setTab(next);
      },
    });
  };
  const body: Record<PricingTab, ReactNode> = {
    json: <RatioJsonSection onReset={() => setVersion((v) => v + 1)} />,
    visual: (
      <VisualRatioEditor
        onPending={(n) => {
          pending.current = n;
        }}
      />
    ),
    unset: <UnsetModels />,
  };
  return (
    <Card
      id="section-pricing"
      data-testid="settings-section-pricing"
      title={t('section.pricing.title')}
      size="small"
      styles={{ header: { fontSize: 15, paddingTop: 10 } }}
      style={{ marginBottom: 16, scrollMarginTop: 120 }}
      activeTabKey={tab}
      onTabChange={(k) => change(k as PricingTab)}
      tabList={TABS.map((k) => ({
        key: k,
        label: <span data-testid={`pricing-tab-${k}`}>{t(narrow ? `pricing.tabShort.${k}` : `pricing.tab.${k}`)}</span>,
      }))}
      tabProps={{ size: 'middle' }}
    >
      <div key={`${tab}-${version}`}>{body[tab]}</div>
    </Card>
  );
}
