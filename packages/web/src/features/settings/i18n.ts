/** Strings of the settings feature, zh and en. */
export default {
  zh: {},
  en: {},
};
