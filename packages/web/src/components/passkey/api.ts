import { useQuery } from '@tanstack/react-query';
import type { PasskeyStatus } from '@tollway/shared';
import { apiDelete, apiGet, apiPost } from '../../lib/api';
import { createPasskey, getPasskey, optionsOf } from '../../lib/passkey';

export const PASSKEY_STATUS_KEY = ['user', 'passkey'] as const;

/** GET /api/user/passkey: whether the caller holds a passkey, and when it was last used. */
export function usePasskeyStatus(enabled = true) {
  return useQuery({
    queryKey: PASSKEY_STATUS_KEY,
    queryFn: () => apiGet<PasskeyStatus>('/api/user/passkey', { silent: true }),
    enabled,
  });
}

/**
 * Signs in with a passkey: any passkey of this site (no body), or, with the flow token of a password sign-in that
 * waits for its second factor, that user's passkey. Resolves to the sign-in's answer (the user).
 */
export async function signInWithPasskey(flowToken?: string): Promise<unknown> {
  const begin = await apiPost<unknown>('/api/user/passkey/login/begin', flowToken ? { flow_token: flowToken } : {});
  const credential = await getPasskey(optionsOf(begin.data));
  return (await apiPost<unknown>('/api/user/passkey/login/finish', credential)).data;
}

/** Registers a passkey for the signed-in user (replacing the one held); true once done. */
export async function registerPasskey(): Promise<true> {
  const begin = await apiPost<unknown>('/api/user/passkey/register/begin');
  const credential = await createPasskey(optionsOf(begin.data));
  await apiPost('/api/user/passkey/register/finish', credential);
  return true;
}

/** Verifies the session with the user's passkey (five minutes, like a code): verify/begin, the prompt, /api/verify. */
export async function verifyWithPasskey(): Promise<true> {
  const begin = await apiPost<unknown>('/api/user/passkey/verify/begin');
  const credential = await getPasskey(optionsOf(begin.data));
  await apiPost('/api/user/passkey/verify/finish', credential);
  await apiPost('/api/verify', { method: 'passkey' });
  return true;
}

/** Removes the caller's passkey after verifying the session with it. */
export async function removePasskey(): Promise<true> {
  await verifyWithPasskey();
  await apiDelete('/api/user/passkey');
  return true;
}
