import en from './locales/en';
import fetch from './locales/fetch';
import mcp from './locales/mcp';
import pricing from './locales/pricing';
import preset from './locales/preset';
import relay from './locales/relay';
import affinity from './locales/affinity';
import routing from './locales/routing';
import responseCache from './locales/response-cache';
import zh from './locales/zh';

type Tree = { [k: string]: string | Tree };

/** Merges string trees (later parts add keys to the nested groups of earlier ones, e.g. field.* and help.*). */
function merge(...parts: object[]): Tree {
  const out: Tree = {};
  for (const part of parts)
    for (const [k, v] of Object.entries(part as Tree)) {
      const prev = out[k];
      out[k] = typeof v === 'object' && typeof prev === 'object' ? merge(prev, v) : v;
    }
  return out;
}

/** Strings of the settings feature, zh and en: base sections, pricing editors, rate limit and models tabs. */
export default {
  zh: merge(responseCache.zh, zh, pricing.zh, preset.zh, relay.zh, fetch.zh, routing.zh, affinity.zh, mcp.zh),
  en: merge(responseCache.en, en, pricing.en, preset.en, relay.en, fetch.en, routing.en, affinity.en, mcp.en),
};
