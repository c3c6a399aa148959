import { DrawingSection, SensitiveSection } from './ContentControlSections';
import { GeneralOpsSection } from './GeneralOpsSection';
import { GroupSection } from './GroupSection';
import { DashboardSection, LogSection, MonitoringSection } from './MonitoringSections';
import { CheckInSection, QuotaSection } from './QuotaSections';

/** The operation tab (spec 1 §2, spec 2 §2): general, quota and invite, check-in, logs, dashboard, monitoring… */
export function OperationTab() {
  return (
    <>
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
