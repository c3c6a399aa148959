// Which registry entry describes a served model: new-api's name rules and their order.
import { NameRule } from './schema.js';

/** What matching reads of a registry entry. */
export interface RuleEntry {
  model_name: string;
  name_rule: number;
}

/** True when `pattern` under `rule` covers the model `name` (an unknown rule covers nothing). */
export function ruleCovers(rule: number, pattern: string, name: string): boolean {
  if (pattern === '') return false;
  switch (rule) {
    case NameRule.Exact:
      return name === pattern;
    case NameRule.Prefix:
      return name.startsWith(pattern);
    case NameRule.Suffix:
      return name.endsWith(pattern);
    case NameRule.Contains:
      return name.includes(pattern);
    default:
      return false;
  }
}

/**
 * Registry entries by rule, for finding the one that describes a model name: an exact entry first, then the first
 * prefix rule, then suffix, then contains (in the order given, oldest first), as new-api matches them.
 */
export class RuleIndex<T extends RuleEntry> {
  private readonly exact = new Map<string, T>();
  private readonly ordered: T[][];

  constructor(entries: readonly T[]) {
    const prefix: T[] = [];
    const suffix: T[] = [];
    const contains: T[] = [];
    for (const e of entries) {
      if (e.name_rule === NameRule.Exact) {
        if (!this.exact.has(e.model_name)) this.exact.set(e.model_name, e);
      } else if (e.name_rule === NameRule.Prefix) prefix.push(e);
      else if (e.name_rule === NameRule.Suffix) suffix.push(e);
      else if (e.name_rule === NameRule.Contains) contains.push(e);
    }
    this.ordered = [prefix, suffix, contains];
  }

  /** The entry describing `name`, or undefined when none covers it. */
  find(name: string): T | undefined {
    const hit = this.exact.get(name);
    if (hit) return hit;
    for (const list of this.ordered) {
      for (const e of list) if (ruleCovers(e.name_rule, e.model_name, name)) return e;
    }
    return undefined;
  }
}
