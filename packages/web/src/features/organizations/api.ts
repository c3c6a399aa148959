import { useQuery } from '@tanstack/react-query';
import {
  TOKEN_KEY_PREFIX,
  type Budget,
  type budgetBody,
  type Organization,
  type OrgLogRow,
  type OrgInvitation,
  type orgInvitationBody,
  type orgInvitationCreated,
  type orgInvitationPreview,
  type OrgMember,
  type OrgRole,
  type OrgTeam,
  type OrgToken,
  type orgTokenBody,
  type orgUpdateBody,
  type Page,
  type SpendQuery,
  type SpendReport,
} from '@tollway/shared';
import type { z } from 'zod';
import { apiDelete, apiGet, apiGetPage, apiPost, apiPut } from '../../lib/api';
import { getStoredUser } from '../../lib/storage';

/** Every query of the feature starts with this key, so one invalidation refreshes what an action changed. */
export const ORG_KEY = ['org'] as const;
export const MY_ORGS_KEY = [...ORG_KEY, 'self'] as const;
export const orgKey = (id: number, ...rest: unknown[]) => [...ORG_KEY, id, ...rest];

/** A listing answered as an array or as a page ({items}). */
function listOf<T>(d: T[] | { items?: T[] } | undefined | null): T[] {
  if (Array.isArray(d)) return d;
  return d?.items ?? [];
}

const base = (id: number) => `/api/org/${id}`;

export const fetchMyOrgs = () => apiGet<Organization[]>('/api/org/self').then(listOf);
export const createOrg = (name: string) => apiPost<Organization>('/api/org', { name }).then((e) => e.data!);
export const fetchOrg = (id: number) => apiGet<Organization>(base(id));
export const updateOrg = (id: number, body: z.input<typeof orgUpdateBody>) => apiPut<Organization>(base(id), body);
export const deleteOrg = (id: number) => apiDelete(base(id));
export const redeemOrgCode = (id: number, key: string) =>
  apiPost<{ quota: number }>(`${base(id)}/redeem`, { key }).then((e) => Number(e.data?.quota ?? 0));

export const fetchMembers = (id: number) => apiGet<OrgMember[]>(`${base(id)}/members`).then(listOf);
export const setMemberRole = (id: number, userId: number, role: OrgRole) =>
  apiPut(`${base(id)}/members/${userId}`, { role });
export const removeMember = (id: number, userId: number) => apiDelete(`${base(id)}/members/${userId}`);

export const fetchInvitations = (id: number) => apiGet<OrgInvitation[]>(`${base(id)}/invitations`).then(listOf);
export type InvitationCreated = z.infer<typeof orgInvitationCreated>;
export const createInvitation = (id: number, body: z.input<typeof orgInvitationBody>) =>
  apiPost<InvitationCreated>(`${base(id)}/invitations`, body).then((e) => e.data!);
export const revokeInvitation = (id: number, invitationId: number) =>
  apiDelete(`${base(id)}/invitations/${invitationId}`);
export type InvitationPreview = z.infer<typeof orgInvitationPreview>;
export const previewInvitation = (code: string) =>
  apiGet<InvitationPreview>(`/api/org/invitation?code=${encodeURIComponent(code)}`, { silent: true });
export const acceptInvitation = (code: string) =>
  apiPost<Organization>('/api/org/invitation/accept', { code }).then((e) => e.data!);

export const fetchTeams = (id: number) => apiGet<OrgTeam[]>(`${base(id)}/teams`).then(listOf);
export const createTeam = (id: number, name: string) => apiPost<OrgTeam>(`${base(id)}/teams`, { name });
export const renameTeam = (id: number, teamId: number, name: string) => apiPut(`${base(id)}/teams/${teamId}`, { name });
export const deleteTeam = (id: number, teamId: number) => apiDelete(`${base(id)}/teams/${teamId}`);
export const addTeamMember = (id: number, teamId: number, userId: number) =>
  apiPut(`${base(id)}/teams/${teamId}/members/${userId}`);
export const removeTeamMember = (id: number, teamId: number, userId: number) =>
  apiDelete(`${base(id)}/teams/${teamId}/members/${userId}`);

export type OrgTokenInput = z.input<typeof orgTokenBody>;
export const fetchOrgTokens = (id: number) => apiGet<OrgToken[] | Page<OrgToken>>(`${base(id)}/tokens`).then(listOf);
export const createOrgToken = (id: number, body: OrgTokenInput) =>
  apiPost<OrgToken>(`${base(id)}/tokens`, body).then((e) => e.data!);
export const updateOrgToken = (id: number, tokenId: number, body: OrgTokenInput) =>
  apiPut<OrgToken>(`${base(id)}/tokens/${tokenId}`, body);
export const deleteOrgToken = (id: number, tokenId: number) => apiDelete(`${base(id)}/tokens/${tokenId}`);
/** A key as shown and copied: sk-<key>. */
export const withPrefix = (key: string) => (key.startsWith(TOKEN_KEY_PREFIX) ? key : `${TOKEN_KEY_PREFIX}${key}`);

export type BudgetInput = z.input<typeof budgetBody>;
export const fetchBudgets = (id: number) => apiGet<Budget[] | Page<Budget>>(`${base(id)}/budgets`).then(listOf);
export const createBudget = (id: number, body: BudgetInput) => apiPost<Budget>(`${base(id)}/budgets`, body);
export const updateBudget = (id: number, budgetId: number, body: BudgetInput) =>
  apiPut<Budget>(`${base(id)}/budgets/${budgetId}`, body);
export const deleteBudget = (id: number, budgetId: number) => apiDelete(`${base(id)}/budgets/${budgetId}`);

/** What the spend and logs pages narrow the calls by (each left out: every value). */
export type SpendFilter = Pick<SpendQuery, 'team_id' | 'member_id' | 'token_id' | 'model_name' | 'tag'>;

/** The query string of a spend report, its export or a logs page (the same filters); empty values are left out. */
export function spendParams(q: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
  return params.toString();
}

export type { OrgLogRow };
/** GET /api/org/:id/logs: one page, newest first, narrowed by the filters and a range (0: unbounded). */
export const fetchOrgLogs = (
  id: number,
  page: number,
  pageSize: number,
  filter: SpendFilter & { start_timestamp?: number; end_timestamp?: number } = {},
) => apiGetPage<OrgLogRow>(`${base(id)}/logs?${spendParams({ p: page, page_size: pageSize, ...filter })}`, page);
export const fetchSpend = (id: number, q: SpendQuery) => apiGet<SpendReport>(`${base(id)}/spend?${spendParams(q)}`);
export const spendExportUrl = (id: number, q: SpendQuery) => `${base(id)}/spend/export?${spendParams(q)}`;

/**
 * Downloads the CSV export: a plain link would not carry the New-Api-User header the management API asks for, so the
 * file is fetched and handed to the browser as a download. Resolves false when the server refused.
 */
export async function downloadSpendCsv(url: string, name: string): Promise<boolean> {
  const user = getStoredUser();
  const res = await fetch(url, {
    credentials: 'same-origin',
    headers: { 'New-Api-User': String(user?.id ?? ''), 'Cache-Control': 'no-store' },
  });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || type.includes('application/json')) return false;
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 0);
  return true;
}

/** GET /api/org/self: the organizations the signed-in person belongs to. */
export function useMyOrgs(enabled = true) {
  return useQuery({ queryKey: MY_ORGS_KEY, queryFn: fetchMyOrgs, enabled, staleTime: 30_000 });
}

export function useOrg(id: number) {
  return useQuery({ queryKey: orgKey(id), queryFn: () => fetchOrg(id), enabled: id > 0 });
}

export function useMembers(id: number, enabled = true) {
  return useQuery({ queryKey: orgKey(id, 'members'), queryFn: () => fetchMembers(id), enabled });
}

export function useTeams(id: number, enabled = true) {
  return useQuery({ queryKey: orgKey(id, 'teams'), queryFn: () => fetchTeams(id), enabled });
}

export function useOrgTokens(id: number, enabled = true) {
  return useQuery({ queryKey: orgKey(id, 'tokens'), queryFn: () => fetchOrgTokens(id), enabled });
}
