/** Strings of the home feature, zh and en. */
export default {
  zh: {},
  en: {},
};
