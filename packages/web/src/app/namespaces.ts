import { registerNamespaces, type NamespaceLoader } from '../i18n';

/**
 * The texts of each feature (and of the two-factor widgets), one chunk per namespace, fetched the first time a page
 * asks for them. This registry lives with the app, not in i18n/, because it names every feature and the floors below
 * the features import none. Importing this file registers it (main.tsx does, before the app).
 */
export const FEATURE_NAMESPACES: Record<string, NamespaceLoader> = {
  auth: () => import('../features/auth/i18n'),
  home: () => import('../features/home/i18n'),
  me: () => import('../features/me/i18n'),
  users: () => import('../features/users/i18n'),
  settings: () => import('../features/settings/i18n'),
  setup: () => import('../features/setup/i18n'),
  channels: () => import('../features/channels/i18n'),
  tokens: () => import('../features/tokens/i18n'),
  logs: () => import('../features/logs/i18n'),
  tasks: () => import('../features/tasks/i18n'),
  dashboard: () => import('../features/dashboard/i18n'),
  pricing: () => import('../features/pricing/i18n'),
  redemption: () => import('../features/redemption/i18n'),
  wallet: () => import('../features/wallet/i18n'),
  subscriptions: () => import('../features/subscriptions/i18n'),
  inbox: () => import('../features/inbox/i18n'),
  messages: () => import('../features/messages/i18n'),
  playground: () => import('../features/playground/i18n'),
  twofa: () => import('../components/twofa/i18n'),
  passkey: () => import('../components/passkey/i18n'),
  audit: () => import('../features/audit/i18n'),
  organizations: () => import('../features/organizations/i18n'),
  orgAdmin: () => import('../features/organizations/admin/i18n'),
  customOAuth: () => import('../components/custom-oauth/i18n'),
  mcp: () => import('../features/mcp/i18n'),
};

registerNamespaces(FEATURE_NAMESPACES);
