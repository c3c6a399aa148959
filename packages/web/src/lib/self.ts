import { useQuery } from '@tanstack/react-query';
import { isAdmin, isRoot, renderQuota, type UserPublic } from '@tollway/shared';
import { useCallback } from 'react';
import { apiGet } from './api';
import { useStatus } from './status';

export const SELF_KEY = ['user', 'self'] as const;

/** GET /api/user/self. */
export function useSelf() {
  return useQuery({ queryKey: SELF_KEY, queryFn: () => apiGet<UserPublic>('/api/user/self') });
}

/** Formats quota as currency or raw units per status.display_in_currency and quota_per_unit (digits: decimals of currency). */
export function useQuotaFormat() {
  const { data: status } = useStatus();
  const displayInCurrency = status?.display_in_currency ?? true;
  const quotaPerUnit = status?.quota_per_unit;
  return useCallback(
    (quota: number, digits?: number) => renderQuota(quota ?? 0, { displayInCurrency, quotaPerUnit, digits }),
    [displayInCurrency, quotaPerUnit],
  );
}

/** Role label key: super administrator, administrator or user. */
export function roleKey(role: number): 'root' | 'admin' | 'user' {
  if (isRoot(role)) return 'root';
  if (isAdmin(role)) return 'admin';
  return 'user';
}

/** Models the user may limit a token to (GET /api/user/models). */
export function useUserModels(enabled = true) {
  return useQuery({
    queryKey: ['user', 'models'],
    queryFn: async () => {
      const d = await apiGet<string[]>('/api/user/models');
      return Array.isArray(d) ? d : [];
    },
    enabled,
    staleTime: 60_000,
  });
}

export interface SelfGroup {
  desc: string;
  ratio: number;
}

/** Groups open to the user (GET /api/user/self/groups → {name: {desc, ratio}}). */
export function useSelfGroups(enabled = true) {
  return useQuery({
    queryKey: ['user', 'self', 'groups'],
    queryFn: async () => (await apiGet<Record<string, SelfGroup>>('/api/user/self/groups')) ?? {},
    enabled,
    staleTime: 60_000,
  });
}
