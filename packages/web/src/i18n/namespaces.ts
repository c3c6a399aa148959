type Texts = { default: { zh: object; en: object } };

/**
 * The texts of each feature (and of the two-factor widgets), one chunk per namespace, fetched the first time a page
 * asks for them; `common` and the layout's `shell` ship with the entry since every page shows them. The refusal
 * codes' texts (`errors`) are fetched with the first refusal (lib/refusal-text.ts).
 */
export const LAZY_NAMESPACES: Record<string, () => Promise<Texts>> = {
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
  inbox: () => import('../features/inbox/i18n'),
  messages: () => import('../features/messages/i18n'),
  playground: () => import('../features/playground/i18n'),
  twofa: () => import('../components/twofa/i18n'),
  audit: () => import('../features/audit/i18n'),
  errors: () => import('./errors'),
};
