import { useQuery } from '@tanstack/react-query';
import type { TwoFactorChallenge, TwoFactorSetup, TwoFactorStatus } from '@tollway/shared';
import { apiGet, apiPost } from '../../lib/api';

export type { TwoFactorSetup };

export const TWOFA_STATUS_KEY = ['user', '2fa', 'status'] as const;

export const isChallenge = (data: unknown): data is TwoFactorChallenge =>
  typeof data === 'object' && data !== null && (data as { require_2fa?: unknown }).require_2fa === true;

/** GET /api/user/2fa/status. */
export function useTwoFactorStatus() {
  return useQuery({ queryKey: TWOFA_STATUS_KEY, queryFn: () => apiGet<TwoFactorStatus>('/api/user/2fa/status') });
}

export const startSetup = async () => (await apiPost<TwoFactorSetup>('/api/user/2fa/setup')).data!;
export const enableTwoFactor = (code: string) => apiPost('/api/user/2fa/enable', { code });
export const disableTwoFactor = (code: string) => apiPost('/api/user/2fa/disable', { code });
export const regenerateBackupCodes = async (code: string) =>
  (await apiPost<{ backup_codes: string[] }>('/api/user/2fa/backup_codes', { code })).data!.backup_codes;
export const completeLogin = async (code: string, flowToken: string | undefined) =>
  (await apiPost<unknown>('/api/user/login/2fa', { code, ...(flowToken ? { flow_token: flowToken } : {}) })).data;
