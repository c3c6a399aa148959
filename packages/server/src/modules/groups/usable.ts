import type { OptionsService } from '../../core/options/service.js';

/** Groups open to a user of `group` (name → description): UserUsableGroups plus the user's own group. */
export function usableGroups(options: OptionsService, group: string): Record<string, string> {
  const usable: Record<string, string> = { ...options.json<Record<string, string>>('UserUsableGroups') };
  if (!(group in usable)) usable[group] = group;
  return usable;
}

/** Whether a user of `userGroup` may use `group` now; no copy of the option (the relay asks on every call). */
export function isUsableGroup(options: OptionsService, userGroup: string, group: string): boolean {
  if (group === userGroup) return true;
  const table = options.json<Record<string, string> | null>('UserUsableGroups');
  return typeof table === 'object' && table !== null && Object.hasOwn(table, group);
}
