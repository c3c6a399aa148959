import { OrgStatus, type Organization, type Page } from '@tollway/shared';
import { apiGetPage, apiPut } from '../../../lib/api';
import { ORG_KEY } from '../api';

/** The system administrators' list of organizations; under ORG_KEY, so a change anywhere refreshes it. */
export const ORG_ADMIN_KEY = [...ORG_KEY, 'all'] as const;

export interface OrgAdminQuery {
  page: number;
  pageSize: number;
  keyword: string;
}

/** GET /api/org/all: every organization, newest first; the keyword matches the name. */
export function fetchAllOrgs(q: OrgAdminQuery): Promise<Page<Organization>> {
  const params = new URLSearchParams({ p: String(q.page), page_size: String(q.pageSize) });
  if (q.keyword) params.set('keyword', q.keyword);
  return apiGetPage<Organization>(`/api/org/all?${params.toString()}`, q.page);
}

/** PUT /api/org/:id/status (system administrators): disabling stops every token of the organization. */
export const setOrgStatus = (id: number, enabled: boolean) =>
  apiPut<Organization>(`/api/org/${id}/status`, { status: enabled ? OrgStatus.Enabled : OrgStatus.Disabled });

/** PUT /api/org/:id/reseller (root): its own prices for its members; off sets the markup back to 0. */
export const setOrgReseller = (id: number, reseller: boolean) =>
  apiPut<Organization>(`/api/org/${id}/reseller`, { reseller });
