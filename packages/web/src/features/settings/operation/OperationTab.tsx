import { DrawingSection, SensitiveSection } from './ContentControlSections';
import { GeneralOpsSection } from './GeneralOpsSection';
import { GroupSection } from './GroupSection';
import { DashboardSection, LogSection, MonitoringSection } from './MonitoringSections';
import { CheckInSection, QuotaSection } from './QuotaSections';
import { SectionNav, type NavItem } from '../components/SectionNav';

const NAV: NavItem[] = [
  { id: 'operation-general', title: 'section.opGeneral.title' },
  { id: 'quota', title: 'section.quota.title' },
  { id: 'checkin', title: 'section.checkin.title' },
  { id: 'groups', title: 'section.groups.title' },
  { id: 'logs', title: 'section.logs.title' },
  { id: 'dashboard', title: 'section.dashboard.title' },
  { id: 'monitoring', title: 'section.monitoring.title' },
  { id: 'drawing', title: 'section.drawing.title' },
  { id: 'sensitive', title: 'section.sensitive.title' },
];

/** The operation tab (spec 1 §2, spec 2 §2): general, quota and invite, check-in, logs, dashboard, monitoring… */
export function OperationTab() {
  return (
    <>
      <SectionNav items={NAV} />
      <GeneralOpsSection />
      <QuotaSection />
      <CheckInSection />
      <GroupSection />
      <LogSection />
      <DashboardSection />
      <MonitoringSection />
      <DrawingSection />
      <SensitiveSection />
    </>
  );
}
