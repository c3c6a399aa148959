import i18n, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import common from './common';
import shell from '../layout/i18n';

export const LANGUAGES = ['zh', 'en'] as const;
type Language = (typeof LANGUAGES)[number];
const stored = localStorage.getItem('i18nextLng');
const lng = stored === 'en' || stored === 'zh' ? stored : 'zh';

type Texts = { default: { zh: object; en: object } };
/** Fetches one namespace's chunk of texts. */
export type NamespaceLoader = () => Promise<Texts>;

/**
 * The namespaces fetched on demand: `common` and the layout's `shell` ship with the entry since every page shows
 * them; the refusal codes' texts (`errors`) are fetched with the first refusal (lib/refusal-text.ts); the features'
 * are added by the app (registerNamespaces), since this floor imports no feature.
 */
const lazyNamespaces: Record<string, NamespaceLoader> = {
  errors: () => import('./errors'),
};

/** Adds the app's namespaces (app/namespaces.ts); called once at start-up, before any page asks for its texts. */
export function registerNamespaces(loaders: Record<string, NamespaceLoader>): void {
  Object.assign(lazyNamespaces, loaders);
}

/** Loads a namespace's chunk on demand; a component asking for it suspends until it is in (no raw keys on screen). */
const lazyTexts: BackendModule = {
  type: 'backend',
  init() {},
  read(language, ns, done) {
    const load = lazyNamespaces[ns];
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
