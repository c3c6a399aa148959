import type { OptionKey } from '@tollway/shared';
import { Avatar, Col, Form } from 'antd';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { canEditOption } from '../model/access';
import { useFieldValue } from '../model/useFieldValue';

const NOTICE: OptionKey[] = ['Notice'];
const BRANDING: OptionKey[] = ['SystemName', 'Logo', 'Footer'];
const CONTENT: OptionKey[] = ['HomePageContent', 'About'];
const CODE: OptionKey[] = ['custom_head_html', 'global_css', 'global_js'];

/** The announcement shown to users (Markdown). */
export function NoticeSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="notice" title={t('section.notice.title')} description={t('section.notice.desc')} keys={NOTICE}>
      <OptionField k="Notice" type="textarea" />
    </SettingsSection>
  );
}

function LogoPreview() {
  const { t } = useTranslation('settings');
  const logo = useFieldValue('Logo');
  return (
    <Col xs={24} md={12} xl={8}>
      <Form.Item label={t('branding.preview')}>
        <Avatar
          shape="square"
          size={40}
          src={typeof logo === 'string' && logo ? logo : '/logo.svg'}
          alt={t('field.Logo')}
        />
      </Form.Item>
    </Col>
  );
}

/** System name, logo and footer: the shell picks them up right after saving. */
export function BrandingSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="branding"
      // The footer is HTML, root's alone: an administrator's section is named for what it holds.
      title={t(canEditOption('Footer') ? 'section.branding.title' : 'section.branding.titleNoFooter')}
      description={t('section.branding.desc')}
      keys={BRANDING}
    >
      <OptionField k="SystemName" span="third" />
      <OptionField k="Logo" span="third" placeholder="https://example.com/logo.png" />
      <LogoPreview />
      <OptionField k="Footer" type="textarea" />
    </SettingsSection>
  );
}

/** Home page and about page content: Markdown, HTML, or a URL shown in a frame. */
export function ContentSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="content"
      title={t('section.content.title')}
      description={t('section.content.desc')}
      keys={CONTENT}
    >
      <OptionField k="HomePageContent" type="textarea" />
      <OptionField k="About" type="textarea" />
    </SettingsSection>
  );
}

/** Custom head HTML, global CSS and global JavaScript injected into every page. */
export function CustomCodeSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="custom-code"
      title={t('section.customCode.title')}
      description={t('section.customCode.desc')}
      keys={CODE}
    >
      <OptionField k="custom_head_html" type="code" placeholder='<meta name="description" content="…" />' />
      <OptionField k="global_css" type="code" placeholder="body { }" />
      <OptionField k="global_js" type="code" placeholder="console.log('hello');" />
    </SettingsSection>
  );
}
