/** Strings of the auth feature, zh and en. */
export default {
  zh: {},
  en: {},
};
