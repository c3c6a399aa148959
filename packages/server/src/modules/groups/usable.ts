import type { OptionsService } from '../options/service.js';

/** Groups open to a user of `group` (name → description): UserUsableGroups plus the user's own group. */
export function usableGroups(options: OptionsService, group: string): Record<string, string> {
  const usable: Record<string, string> = { ...options.json<Record<string, string>>('UserUsableGroups') };
  if (!(group in usable)) usable[group] = group;
  return usable;
}
