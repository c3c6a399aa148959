import type { CustomOAuthStatusEntry } from '@tollway/shared';
import { useQuery } from '@tanstack/react-query';
import { apiGet } from './api';
import { readJson, writeJson } from './storage';

/** Public status payload of GET /api/status. */
export interface Status {
  system_name: string;
  logo: string;
  footer_html: string;
  quota_per_unit: number;
  display_in_currency: boolean;
  enable_drawing: boolean;
  enable_task: boolean;
  enable_data_export: boolean;
  chats: Record<string, string>[];
  data_export_default_time: string;
  default_collapse_sidebar: boolean;
  mj_notify_enabled: boolean;
  chat_link: string;
  chat_link2: string;
  /** The configured public address of this server ('' when unset). */
  server_address?: string;
  docs_link: string;
  version: string;
  start_time: number;
  turnstile_check: boolean;
  turnstile_site_key: string;
  aff_enabled: boolean;
  email_verification: boolean;
  check_in_enabled: boolean;
  github_oauth: boolean;
  github_client_id: string;
  oidc_enabled: boolean;
  oidc_client_id: string;
  oidc_authorization_endpoint: string;
  linuxdo_oauth: boolean;
  linuxdo_client_id: string;
  wechat_login: boolean;
  wechat_qrcode: string;
  telegram_oauth: boolean;
  telegram_bot_name: string;
  self_use_mode_enabled: boolean;
  demo_site_enabled: boolean;
  setup: boolean;
  register_enabled: boolean;
  password_login_enabled: boolean;
  password_register_enabled: boolean;
  /** Directory (LDAP / Active Directory) sign-in is on (LDAPEnabled). */
  ldap_login?: boolean;
  /** Passkey sign-in is on (passkey.enabled). */
  passkey_login?: boolean;
  top_up_link: string;
  /** Enabled root-defined sign-in providers (absent when there are none, as new-api answers). */
  custom_oauth_providers?: CustomOAuthStatusEntry[];
}

export const STATUS_KEY = ['status'] as const;

/** The status payload, cached locally so the shell renders at once on reload. */
export function useStatus() {
  return useQuery({
    queryKey: STATUS_KEY,
    queryFn: async () => {
      const s = await apiGet<Status>('/api/status', { silent: true });
      writeJson('status', s);
      localStorage.setItem('footer_html', s.footer_html ?? '');
      localStorage.setItem('enable_data_export', String(s.enable_data_export));
      localStorage.setItem('enable_drawing', String(s.enable_drawing));
      localStorage.setItem('enable_task', String(s.enable_task));
      localStorage.setItem('chats', JSON.stringify(s.chats ?? []));
      localStorage.setItem('default_collapse_sidebar', String(s.default_collapse_sidebar));
      return s;
    },
    initialData: () => readJson<Status>('status'),
    initialDataUpdatedAt: 0,
    staleTime: 60_000,
  });
}
