import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const DRAWING: OptionKey[] = [
  'DrawingEnabled',
  'TaskEnabled',
  'MjNotifyEnabled',
  'MjAccountFilterEnabled',
  'MjForwardUrlEnabled',
  'MjModeClearEnabled',
  'MjActionCheckSuccessEnabled',
];
const SENSITIVE: OptionKey[] = ['CheckSensitiveEnabled', 'CheckSensitiveOnPromptEnabled', 'SensitiveWords'];

/** Drawing and task switches. */
export function DrawingSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="drawing" title={t('section.drawing.title')} keys={DRAWING}>
      {DRAWING.map((k) => (
        <OptionField key={k} k={k} />
      ))}
    </SettingsSection>
  );
}

/** Sensitive-word checks; one word per line, `regex:` prefix for patterns. */
export function SensitiveSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="sensitive" title={t('section.sensitive.title')} keys={SENSITIVE}>
      <OptionField k="CheckSensitiveEnabled" span="half" />
      <OptionField k="CheckSensitiveOnPromptEnabled" span="half" />
      <OptionField k="SensitiveWords" type="code" />
    </SettingsSection>
  );
}
