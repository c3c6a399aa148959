import type { RouteDef } from '../../http/route.js';
import { auditCatalog, computedActions } from './catalog.js';
import { defaultAction, defaultTarget } from './naming.js';
import { auditTrailFor } from './trail.js';

/** The action names and target types the audit trail can write for these routes (what the console words). */
export function auditNamesOf(routes: readonly RouteDef[]): { actions: string[]; targets: string[] } {
  const actions = new Set<string>();
  const targets = new Set<string>();
  for (const def of routes) {
    if (!auditTrailFor(def)) continue;
    const key = `${def.method} ${def.url}`;
    const spec = def.audit || auditCatalog[key] || {};
    if (typeof spec.action === 'function') {
      const listed = computedActions[key];
      if (!listed) throw new Error(`${key} computes its audit action: list its names in computedActions`);
      for (const a of listed) actions.add(a);
    } else actions.add(spec.action ?? defaultAction(def));
    targets.add(spec.target ?? defaultTarget(def.url));
  }
  return { actions: [...actions].sort(), targets: [...targets].sort() };
}
