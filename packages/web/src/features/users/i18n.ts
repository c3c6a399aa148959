/** Strings of the users feature, zh and en. */
export default {
  zh: {},
  en: {},
};
