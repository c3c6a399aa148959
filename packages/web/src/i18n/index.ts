import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import common from './common';
import shell from '../layout/i18n';
import { LAZY_NAMESPACES } from './namespaces';

export const LANGUAGES = ['zh', 'en'] as const;
type Language = (typeof LANGUAGES)[number];
const stored = localStorage.getItem('i18nextLng');
const lng = stored === 'en' || stored === 'zh' ? stored : 'zh';

/** Loads a namespace's chunk on demand; a component asking for it suspends until it is in (no raw keys on screen). */
const lazyTexts: BackendModule = {
  type: 'backend',
  init() {},
  read(language, ns, done) {
    const load = LAZY_NAMESPACES[ns];
    if (!load) return done(new Error(`no texts for namespace ${ns}`), null);
    load().then(
      (m) => done(null, m.default[language as Language] ?? m.default.zh),
      (err: Error) => done(err, null),
    );
  },
};

void i18n
  .use(lazyTexts)
  .use(initReactI18next)
  .init({
    resources: { zh: { common: common.zh, shell: shell.zh }, en: { common: common.en, shell: shell.en } },
    partialBundledLanguages: true,
    lng,
    fallbackLng: 'zh',
    ns: ['common', 'shell'],
    defaultNS: 'common',
    initAsync: false,
    interpolation: { escapeValue: false },
  });

/** Fetches the texts a page needs (in the current language and the zh fallback) before it renders. */
export function loadTexts(namespaces: readonly string[]): Promise<void> {
  return i18n.loadNamespaces([...namespaces]);
}

export function setLanguage(lang: Language): void {
  localStorage.setItem('i18nextLng', lang);
  void i18n.changeLanguage(lang);
  document.documentElement.lang = lang;
}

export default i18n;
