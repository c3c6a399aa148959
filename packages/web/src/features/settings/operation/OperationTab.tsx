import { PricingSection } from '../pricing/PricingSection';
import { SectionNav, type NavItem } from '../components/SectionNav';
import { CHATS_KEYS, ChatsSection } from './ChatsSection';
import { DrawingSection, SensitiveSection } from './ContentControlSections';
import { FallbackSection } from './FallbackSection';
import { GeneralOpsSection } from './GeneralOpsSection';
import { GroupSection } from './GroupSection';
import { McpSection } from './McpSection';
import { ConcurrencySection, ModelFallbacksSection } from './LimitsAndFallbacksSections';
import { DashboardSection, LogSection, MonitoringSection } from './MonitoringSections';
import { CheckInSection, QuotaSection } from './QuotaSections';
import { RebateSection } from './RebateSection';
import { AffinitySection } from '../routing/AffinitySection';
import { RoutingStrategySection } from './RoutingStrategySection';
import { ResponseCacheSection } from './ResponseCacheSection';

const NAV: NavItem[] = [
  { id: 'operation-general', title: 'section.opGeneral.title' },
  { id: 'quota', title: 'section.quota.title' },
  { id: 'rebate', title: 'section.rebate.title' },
  { id: 'checkin', title: 'section.checkin.title' },
  { id: 'chats', title: 'section.chats.title', keys: CHATS_KEYS },
  { id: 'groups', title: 'section.groups.title' },
  { id: 'mcp', title: 'section.mcp.title' },
  { id: 'concurrency', title: 'section.concurrency.title' },
  { id: 'model-fallbacks', title: 'section.modelFallbacks.title' },
  { id: 'routing', title: 'section.routing.title' },
  { id: 'fallback', title: 'section.fallback.title' },
  { id: 'affinity', title: 'section.affinity.title' },
  { id: 'response-cache', title: 'section.responseCache.title' },
  { id: 'pricing', title: 'section.pricing.title' },
  { id: 'logs', title: 'section.logs.title' },
  { id: 'dashboard', title: 'section.dashboard.title' },
  { id: 'monitoring', title: 'section.monitoring.title' },
  { id: 'drawing', title: 'section.drawing.title' },
  { id: 'sensitive', title: 'section.sensitive.title' },
];

/**
 * The operation tab: general, quota and invite, rebate, check-in, chat clients, groups,
 * other ratio settings, model pricing (JSON, visual, unset models), logs, dashboard, monitoring, drawing, sensitive words.
 */
export function OperationTab() {
  return (
    <>
      <SectionNav items={NAV} />
      <GeneralOpsSection />
      <QuotaSection />
      <RebateSection />
      <CheckInSection />
      <ChatsSection />
      <GroupSection />
      <McpSection />
      <ConcurrencySection />
      <ModelFallbacksSection />
      <RoutingStrategySection />
      <FallbackSection />
      <AffinitySection />
      <ResponseCacheSection />
      <PricingSection />
      <LogSection />
      <DashboardSection />
      <MonitoringSection />
      <DrawingSection />
      <SensitiveSection />
    </>
  );
}
