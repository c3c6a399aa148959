/** Strings of the me feature, zh and en. */
export default {
  zh: {},
  en: {},
};
