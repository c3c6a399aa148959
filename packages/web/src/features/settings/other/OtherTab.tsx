import { BrandingSection, ContentSection, CustomCodeSection, NoticeSection } from './PresentationSections';
import { SystemInfo } from './SystemInfo';

/** Operation and personalisation: notice, branding, content, custom code and system info. */
export function OtherTab() {
  return (
    <>
      <SystemInfo />
      <NoticeSection />
      <BrandingSection />
      <ContentSection />
      <CustomCodeSection />
    </>
  );
}
