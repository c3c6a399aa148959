import { useQuery } from '@tanstack/react-query';
import type { UserPublic } from '@tollway/shared';
import { renderQuota } from '@tollway/shared';
import { useCallback } from 'react';
import { apiGet } from '../../lib/api';
import { useStatus } from '../../lib/status';

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
  return useCallback((quota: number, digits?: number) => renderQuota(quota ?? 0, { displayInCurrency, quotaPerUnit, digits }), [displayInCurrency, quotaPerUnit]);
}

/** Role label key: super administrator, administrator or user. */
export function roleKey(role: number): 'root' | 'admin' | 'user' {
  if (role >= 100) return 'root';
  if (role >= 10) return 'admin';
  return 'user';
}
