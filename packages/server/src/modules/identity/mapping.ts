// Groups and roles from an identity provider (a custom OAuth/OIDC provider's claim, a trusted header, an LDAP
// group): the external values are mapped to a Tollway group that already exists and to a role that is never root.
import { Role } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';
import type { UsersService } from '../users/service.js';
import type { UserRow } from '../users/store.js';

/** explicit_only: only the mapping table counts; mapping_first: the table, else the external value itself. */
export const MAPPING_MODES = ['explicit_only', 'mapping_first'] as const;
export type MappingMode = (typeof MAPPING_MODES)[number];

/** Most external values looked at for one sign-in (a claim with thousands of groups is cut here). */
export const MAX_CANDIDATES = 256;
/** Longest external value kept (an LDAP DN can be long). */
export const MAX_CANDIDATE_CHARS = 1024;

/** The mapping rules of one identity source (a provider, or the LDAP settings). */
export interface MappingRules {
  /** External value → Tollway group name. */
  groupMapping: Readonly<Record<string, string>>;
  groupMode: MappingMode;
  /** External value → role name or number (common/user/member/1, admin/administrator/10). */
  roleMapping: Readonly<Record<string, string>>;
  roleMode: MappingMode;
}

/** A role an identity provider may give: an ordinary user or an administrator, never root. */
export type MappedRole = typeof Role.Common | typeof Role.Admin;

export const isMappingMode = (v: string): v is MappingMode => (MAPPING_MODES as readonly string[]).includes(v);

/** The mode of a stored setting ('' and unknown values are explicit_only, the stricter one). */
export const mappingMode = (v: string | undefined): MappingMode => {
  const m = (v ?? '').trim().toLowerCase();
  return isMappingMode(m) ? m : 'explicit_only';
};

/**
 * Why a mapping table's JSON text is refused ('' when it is usable): it must be empty or a JSON object whose
 * values are strings.
 */
export function mappingTableProblem(raw: string): string {
  if (!raw.trim()) return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'is not valid JSON';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'must be a JSON object';
  for (const v of Object.values(parsed as Record<string, unknown>))
    if (typeof v !== 'string') return 'must map each value to a string';
  return '';
}

/** A stored mapping table (JSON object of strings); anything unusable reads as an empty table. */
export function parseMappingTable(raw: string): Record<string, string> {
  if (mappingTableProblem(raw)) return {};
  if (!raw.trim()) return {};
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(JSON.parse(raw) as Record<string, string>)) out[k.trim()] = v.trim();
  return out;
}

const scalarText = (v: unknown): string =>
  typeof v === 'string'
    ? v.trim()
    : (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean'
      ? String(v)
      : '';

/**
 * The external values of a claim, a header or an LDAP attribute: a string or number is one value, an array gives
 * each of its non-empty scalar items (objects are skipped). Bounded in count and length.
 */
export function candidatesOf(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  for (const item of items) {
    const v = scalarText(item);
    if (v && v.length <= MAX_CANDIDATE_CHARS) out.push(v);
    if (out.length >= MAX_CANDIDATES) break;
  }
  return out;
}

/** Whether `name` is a group of this gateway (a key of GroupRatio). Groups are never created by a mapping. */
export function groupExists(options: OptionsService, name: string): boolean {
  const table = options.json<Record<string, number> | null>('GroupRatio');
  return !!name && typeof table === 'object' && table !== null && Object.hasOwn(table, name);
}

/**
 * The group the external values give, '' for none: the first value (in the provider's order) that the table maps
 * to an existing group; in mapping_first mode a value the table does not name counts as a group name itself.
 */
export function resolveGroup(
  candidates: readonly string[],
  rules: MappingRules,
  exists: (g: string) => boolean,
): string {
  for (const c of candidates) {
    if (Object.hasOwn(rules.groupMapping, c)) {
      const mapped = rules.groupMapping[c]!;
      if (exists(mapped)) return mapped;
      continue;
    }
    if (rules.groupMode === 'mapping_first' && exists(c)) return c;
  }
  return '';
}

/** A role name or number as a role: ordinary user or administrator; anything else (root included) is none. */
export function roleOf(raw: string): MappedRole | 0 {
  switch (raw.trim().toLowerCase()) {
    case 'common':
    case 'user':
    case 'member':
    case String(Role.Common):
      return Role.Common;
    case 'admin':
    case 'administrator':
    case String(Role.Admin):
      return Role.Admin;
    default:
      return 0;
  }
}

/**
 * The role the external values give, 0 for none: the first value the table maps to a role. In mapping_first mode
 * a value the table does not name may stand for the ordinary user role itself; administrator is given only by an
 * explicit entry of the table (an identity provider's raw "admin" value never makes an administrator).
 */
export function resolveRole(candidates: readonly string[], rules: MappingRules): MappedRole | 0 {
  for (const c of candidates) {
    if (Object.hasOwn(rules.roleMapping, c)) {
      const role = roleOf(rules.roleMapping[c]!);
      if (role) return role;
      continue;
    }
    if (rules.roleMode === 'mapping_first' && roleOf(c) === Role.Common) return Role.Common;
  }
  return 0;
}

/** What a sign-in found: the group and role the provider's values give ('' / 0 when none). */
export interface MappedIdentity {
  group: string;
  role: MappedRole | 0;
}

/** Maps the external group and role values of one sign-in by `rules`. */
export function mapIdentity(
  options: OptionsService,
  rules: MappingRules,
  groupValues: readonly string[],
  roleValues: readonly string[],
): MappedIdentity {
  return {
    group: resolveGroup(groupValues, rules, (g) => groupExists(options, g)),
    role: resolveRole(roleValues, rules),
  };
}

/** Which mapped values a sign-in writes to an existing user. */
export interface SyncSwitches {
  group: boolean;
  role: boolean;
}

/**
 * Writes the mapped group and role to `user` (when switched on and found), through the same path an
 * administrator's edit takes: the row, then the credential event of a lowered role or the change notice, so every
 * node's relay cache drops its copy and the next relay call checks the new group. The super administrator's role
 * is never touched. Returns the user as stored afterwards.
 */
export async function applyMappedIdentity(
  users: UsersService,
  user: UserRow,
  mapped: MappedIdentity,
  sync: SyncSwitches,
): Promise<UserRow> {
  const fields: Partial<Pick<UserRow, 'group' | 'role'>> = {};
  if (sync.group && mapped.group && mapped.group !== user.group) fields.group = mapped.group;
  if (sync.role && mapped.role && user.role < Role.Root && mapped.role !== user.role) fields.role = mapped.role;
  if (fields.group === undefined && fields.role === undefined) return user;
  await users.store.update(user.id, fields);
  if (fields.role !== undefined && fields.role < user.role) await users.credentials.apply('role_lowered', user.id);
  else await users.notifyChanged(user.id);
  return { ...user, ...fields };
}
