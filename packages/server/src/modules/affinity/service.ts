import { ErrorCode, type AffinityCacheStats } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ChannelAffinity } from '../../core/routing/affinity.js';

/** The first part of a key whose rule carries its name (include_rule_name): the name, URI-encoded ('' if none). */
function namePart(key: string): string {
  try {
    return decodeURIComponent(key.slice(0, Math.max(0, key.indexOf(':'))));
  } catch {
    return '';
  }
}

/** The pins held, by rule; a key whose rule is gone or does not carry its name counts as unknown (new-api's rule). */
export async function affinityCacheStats(affinity: ChannelAffinity): Promise<AffinityCacheStats> {
  const settings = affinity.settings.get();
  const named = new Set(settings.rules.filter((r) => r.includeName).map((r) => r.name));
  const byRule: Record<string, number> = Object.fromEntries([...named].map((n) => [n, 0]));
  const store = affinity.store;
  const keys = await store.keys();
  let unknown = 0;
  for (const key of keys) {
    const name = namePart(key);
    if (named.has(name)) byRule[name]!++;
    else unknown++;
  }
  return {
    enabled: settings.enabled,
    total: keys.length,
    unknown,
    by_rule_name: byRule,
    cache_capacity: store.capacity,
    cache_algo: store.algorithm,
  };
}

/** Deletes every pin (rule undefined) or one rule's; the rule must exist and carry its name in its keys. */
export async function clearAffinityCache(affinity: ChannelAffinity, rule: string | undefined): Promise<number> {
  if (rule === undefined) return affinity.store.clear('');
  const found = affinity.settings.get().rules.find((r) => r.name === rule);
  if (!found) throw coded(ErrorCode.AffinityRuleUnknown, `there is no affinity rule named "${rule}"`, { rule });
  if (!found.includeName)
    throw coded(
      ErrorCode.AffinityRuleUnnamed,
      `rule "${rule}" does not include its name in its keys (include_rule_name), so its entries cannot be cleared by rule`,
      { rule },
    );
  return affinity.store.clear(`${encodeURIComponent(rule)}:`);
}
