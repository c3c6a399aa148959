import type { Organization, OrgRole, OrgToken } from '@tollway/shared';
import type { Client } from './app.js';

/** Calls that must succeed: the envelope's data, or an error naming the call and the refusal. */
export async function ok<T>(c: Client, method: string, url: string, body?: unknown): Promise<T> {
  const res = await c.call<T>(method, url, body);
  if (!res.body.success) throw new Error(`${method} ${url} failed: ${res.body.message}`);
  return res.body.data as T;
}

/** An organization created by `owner` through the API. */
export const createOrg = (owner: Client, name: string) => ok<Organization>(owner, 'POST', '/api/org', { name });

/** `who` joins organization `orgId` in `role`: invited by link by `admin`, the code accepted by `who`. */
export async function join(admin: Client, who: Client, orgId: number, role: OrgRole): Promise<void> {
  const inv = await ok<{ code: string }>(admin, 'POST', `/api/org/${orgId}/invitations`, { role });
  await ok(who, 'POST', '/api/org/invitation/accept', { code: inv.code });
}

/** A token of the organization issued by `by` (to themself, or to `member_id`), in `team_id` (0: none). */
export const orgToken = (by: Client, orgId: number, body: { name: string; member_id?: number; team_id?: number }) =>
  ok<OrgToken>(by, 'POST', `/api/org/${orgId}/tokens`, body);
