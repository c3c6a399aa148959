import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import common from './common';
import shell from '../layout/i18n';
import auth from '../features/auth/i18n';
import home from '../features/home/i18n';
import me from '../features/me/i18n';
import users from '../features/users/i18n';
import settings from '../features/settings/i18n';
import setup from '../features/setup/i18n';
import channels from '../features/channels/i18n';
import tokens from '../features/tokens/i18n';
import logs from '../features/logs/i18n';
import tasks from '../features/tasks/i18n';
import dashboard from '../features/dashboard/i18n';
import pricing from '../features/pricing/i18n';
import inbox from '../features/inbox/i18n';
import messages from '../features/messages/i18n';
import playground from '../features/playground/i18n';
import redemption from '../features/redemption/i18n';
import wallet from '../features/wallet/i18n';
import audit from '../features/audit/i18n';
import twofa from '../components/twofa/i18n';

/** One namespace per feature (and for the layout and the two-factor widgets); each folder owns its strings in `i18n.ts` ({ zh, en }). */
const namespaces = {
  common,
  shell,
  auth,
  home,
  me,
  users,
  settings,
  setup,
  channels,
  tokens,
  logs,
  tasks,
  dashboard,
  pricing,
  redemption,
  wallet,
  inbox,
  messages,
  playground,
  twofa,
  audit,
};

export const LANGUAGES = ['zh', 'en'] as const;
const stored = localStorage.getItem('i18nextLng');
const lng = stored === 'en' || stored === 'zh' ? stored : 'zh';

const resources: Record<string, Record<string, object>> = { zh: {}, en: {} };
for (const [ns, res] of Object.entries(namespaces)) {
  resources.zh![ns] = res.zh;
  resources.en![ns] = res.en;
}

void i18n.use(initReactI18next).init({
  resources,
  lng,
  fallbackLng: 'zh',
  ns: Object.keys(namespaces),
  defaultNS: 'common',
  interpolation: { escapeValue: false },
});

export function setLanguage(lang: (typeof LANGUAGES)[number]): void {
  localStorage.setItem('i18nextLng', lang);
  void i18n.changeLanguage(lang);
  document.documentElement.lang = lang;
}

export default i18n;
