import type { OptionKey } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';

const MCP_KEYS: OptionKey[] = ['mcp_setting.group_tools', 'mcp_setting.responses_tools_enabled'];

/**
 * The MCP gateway's tool lists per user group, as JSON checked against the shared schema, and the switch that runs
 * the Responses API's remote `mcp` tools against registered servers (docs/operating/mcp.md).
 */
export function McpSection() {
  const { t } = useTranslation('settings');
  return (
    <SettingsSection id="mcp" title={t('section.mcp.title')} description={t('section.mcp.desc')} keys={MCP_KEYS}>
      <OptionField
        k="mcp_setting.group_tools"
        span="full"
        placeholder='{"default": {"allow": "", "deny": "*__delete_*"}}'
      />
      <OptionField k="mcp_setting.responses_tools_enabled" span="full" />
    </SettingsSection>
  );
}
