import en from './locales/en';
import zh from './locales/zh';

/** Strings of the channels feature, zh and en. */
export default { zh, en };
