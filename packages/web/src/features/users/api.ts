import { useQuery } from '@tanstack/react-query';
import type { createUserBody, Page, updateUserBody, UserManageAction, UserPublic } from '@tollway/shared';
import type { z } from 'zod';
import { apiGet, apiGetPage, apiPost, apiPut } from '../../lib/api';

/** A user as the admin API returns it. Fields may be missing on older servers, so most are optional. */
export type AdminUser = Pick<UserPublic, 'id' | 'username' | 'role' | 'status'> &
  Partial<Omit<UserPublic, 'id' | 'username' | 'role' | 'status'>>;

export interface UserQuery {
  page: number;
  pageSize: number;
  keyword: string;
  group: string;
}

export const USERS_KEY = ['users'] as const;
export const GROUPS_KEY = ['groups'] as const;

/** GET /api/user/ without filters, GET /api/user/search with a keyword or group. */
export function fetchUsers(q: UserQuery): Promise<Page<AdminUser>> {
  const params = new URLSearchParams({ p: String(q.page), page_size: String(q.pageSize) });
  const filtered = q.keyword.trim() !== '' || q.group !== '';
  if (filtered) {
    params.set('keyword', q.keyword.trim());
    params.set('group', q.group);
  }
  return apiGetPage<AdminUser>(`/api/user/${filtered ? 'search' : ''}?${params.toString()}`, q.page);
}

export const fetchUser = (id: number) => apiGet<AdminUser>(`/api/user/${id}`);

/** POST /api/user/ body. */
export type CreateUserInput = z.input<typeof createUserBody>;

export const createUser = (body: CreateUserInput) => apiPost<{ id: number }>('/api/user/', body);

/** PUT /api/user/ body: id plus the fields to change. */
export type UpdateUserInput = z.input<typeof updateUserBody>;

export const updateUser = (body: UpdateUserInput) => apiPut('/api/user/', body);

/** POST /api/user/manage: the server answers with the new status and role. */
export const manageUser = (id: number, action: UserManageAction) =>
  apiPost<{ status: number; role: number }>('/api/user/manage', { id, action }).then((e) => e.data);

/** POST /api/user/manage add_quota: adds or subtracts `delta` in one statement on the server (never a stale total). */
export const changeQuota = (id: number, delta: number) =>
  apiPost<{ status: number; role: number }>('/api/user/manage', {
    id,
    action: 'add_quota',
    mode: delta < 0 ? 'subtract' : 'add',
    value: Math.abs(delta),
  });

/** Group names for the filter and the edit form (GET /api/group/). */
export function useGroups() {
  return useQuery({
    queryKey: GROUPS_KEY,
    queryFn: async () => (await apiGet<string[]>('/api/group/')) ?? [],
    staleTime: 60_000,
  });
}
