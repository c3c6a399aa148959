import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { useFieldValue } from '../model/useFieldValue';

const GENERAL: OptionKey[] = ['ServerAddress', 'CustomCallbackAddress'];
const PROXY: OptionKey[] = ['ReverseProxyEnabled', 'ReverseProxyProvider'];
const WORKER: OptionKey[] = ['WorkerUrl', 'WorkerValidKey'];

/** Server address (trailing slashes stripped on save) and the optional callback address. */
export function GeneralSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="general"
      title={t('section.general.title')}
      description={t('section.general.desc')}
      keys={GENERAL}
    >
      <OptionField k="ServerAddress" placeholder="https://gateway.example.com" />
      <OptionField k="CustomCallbackAddress" placeholder="https://gateway.example.com" />
    </SettingsSection>
  );
}

function ProviderField() {
  const enabled = useFieldValue('ReverseProxyEnabled') === true;
  return <OptionField k="ReverseProxyProvider" disabled={!enabled} />;
}

/** Whether the gateway sits behind a reverse proxy, and which one (nginx or cloudflare). */
export function ReverseProxySection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection
      id="reverse-proxy"
      title={t('section.reverseProxy.title')}
      description={t('section.reverseProxy.desc')}
      keys={PROXY}
    >
      <OptionField k="ReverseProxyEnabled" span="half" />
      <ProviderField />
    </SettingsSection>
  );
}

/** Worker used to fetch images and files on the gateway's behalf. */
export function WorkerSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="worker" title={t('section.worker.title')} description={t('section.worker.desc')} keys={WORKER}>
      <OptionField k="WorkerUrl" placeholder="https://worker.example.com" />
      <OptionField k="WorkerValidKey" />
    </SettingsSection>
  );
}
