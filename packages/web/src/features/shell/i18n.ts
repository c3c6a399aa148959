/** Strings of the shell feature, zh and en. */
export default {
  zh: {},
  en: {},
};
