/** Strings of the setup feature, zh and en. */
export default {
  zh: {},
  en: {},
};
