import { ErrorCode, type PasskeyCredentialBody } from '@tollway/shared';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AppContext } from '../../context.js';
import { coded } from '../../lib/errors.js';
import { passkeyOneTimeOf } from './challenges.js';
import type { RelyingParty } from './settings.js';
import type { PasskeyRow } from './store.js';

/** How long a begun ceremony may take (milliseconds), as new-api's two minutes. */
export const CEREMONY_TIMEOUT_MS = 120_000;

export type CeremonyKind = 'register' | 'login' | 'verify';

/** What a begin call recorded with its challenge. */
export interface Ceremony {
  kind: CeremonyKind;
  /** The user it is for; 0 for a sign-in that any passkey of this site may complete. */
  userId: number;
  /** The row key of the session that began it (register and verify). */
  sessionKey?: string;
  /** The pending password sign-in a passkey completes as its second factor. */
  flowToken?: string;
}

export const CHALLENGE_EXPIRED = 'the passkey request has expired or was already used, please try again';
export const VERIFICATION_FAILED = 'the passkey could not be verified, please try again';

const toStd = (b64url: string): string => Buffer.from(b64url, 'base64url').toString('base64');
const toUrl = (std: string): string => Buffer.from(std, 'base64').toString('base64url');

/** new-api's user handle: the user id as decimal text. */
export const userHandleOf = (userId: number): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(String(userId)));

/** The stored (standard base64) id of the credential a browser answered with. */
export const storedCredentialId = (body: PasskeyCredentialBody): string => toStd(body.rawId);

/** A stored passkey as the allow or exclude list of a ceremony names it. */
export function descriptorOf(row: PasskeyRow): { id: string; transports?: string[] } {
  let transports: string[] | undefined;
  try {
    const parsed: unknown = row.transports ? JSON.parse(row.transports) : undefined;
    if (Array.isArray(parsed)) transports = parsed.filter((t): t is string => typeof t === 'string');
  } catch {
    transports = undefined;
  }
  return { id: toUrl(row.credential_id), ...(transports?.length ? { transports } : {}) };
}

/** Records a begun ceremony under its challenge; the finish call takes it back once. */
export async function rememberCeremony(ctx: AppContext, challenge: string, ceremony: Ceremony): Promise<void> {
  await passkeyOneTimeOf(ctx).put(`challenge:${challenge}`, JSON.stringify(ceremony), CEREMONY_TIMEOUT_MS);
}

/**
 * Takes the ceremony the response's challenge belongs to (read from its clientDataJSON; the signature check below
 * covers it). Refused when unknown, expired, already used or begun for another purpose.
 */
export async function takeCeremony(
  ctx: AppContext,
  body: PasskeyCredentialBody,
  kind: CeremonyKind,
): Promise<{ challenge: string; ceremony: Ceremony }> {
  let challenge = '';
  try {
    const data = JSON.parse(Buffer.from(body.response.clientDataJSON, 'base64url').toString('utf8')) as unknown;
    const c = data && typeof data === 'object' ? (data as { challenge?: unknown }).challenge : undefined;
    if (typeof c === 'string') challenge = c;
  } catch {
    challenge = '';
  }
  if (!challenge) throw coded(ErrorCode.PasskeyVerificationFailed, VERIFICATION_FAILED);
  const stored = await passkeyOneTimeOf(ctx).take(`challenge:${challenge}`);
  const ceremony = stored ? (JSON.parse(stored) as Ceremony) : undefined;
  if (!ceremony || ceremony.kind !== kind) throw coded(ErrorCode.PasskeyChallengeExpired, CHALLENGE_EXPIRED);
  return { challenge, ceremony };
}

export async function registrationOptions(
  rp: RelyingParty,
  user: { id: number; username: string; display_name: string },
  existing: PasskeyRow | undefined,
) {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username || `user-${user.id}`,
    userID: userHandleOf(user.id),
    userDisplayName: user.display_name || user.username,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: existing ? [descriptorOf(existing)] : [],
    authenticatorSelection: {
      residentKey: 'required',
      requireResidentKey: true,
      userVerification: rp.userVerification,
      ...(rp.attachment ? { authenticatorAttachment: rp.attachment } : {}),
    },
  });
}

export async function authenticationOptions(rp: RelyingParty, allow: PasskeyRow | undefined) {
  return generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: rp.userVerification,
    allowCredentials: allow ? [descriptorOf(allow)] : [],
  });
}

/** Checks a registration response; the new passkey's row (without user and times), or the refusal. */
export async function verifyRegistration(
  rp: RelyingParty,
  body: PasskeyCredentialBody,
  challenge: string,
  log: (detail: string) => void,
) {
  const result = await verifyRegistrationResponse({
    response: body as unknown as RegistrationResponseJSON,
    expectedChallenge: challenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    requireUserVerification: rp.userVerification === 'required',
  }).catch((err: unknown) => {
    log(err instanceof Error ? err.message : String(err));
    return undefined;
  });
  if (!result?.verified) throw coded(ErrorCode.PasskeyVerificationFailed, VERIFICATION_FAILED);
  const info = result.registrationInfo;
  const transports = info.credential.transports ?? body.response.transports ?? [];
  return {
    credential_id: toStd(info.credential.id),
    public_key: Buffer.from(info.credential.publicKey).toString('base64'),
    attestation_type: info.fmt,
    aaguid: Buffer.from(info.aaguid.replace(/-/g, ''), 'hex').toString('base64'),
    sign_count: info.credential.counter,
    user_present: 1,
    user_verified: info.userVerified ? 1 : 0,
    backup_eligible: info.credentialDeviceType === 'multiDevice' ? 1 : 0,
    backup_state: info.credentialBackedUp ? 1 : 0,
    transports: transports.length ? JSON.stringify(transports) : '',
    attachment: body.authenticatorAttachment ?? '',
  };
}

/** Checks an assertion against the stored passkey; its new signature counter, or the refusal. */
export async function verifyAssertion(
  rp: RelyingParty,
  body: PasskeyCredentialBody,
  challenge: string,
  row: PasskeyRow,
  log: (detail: string) => void,
): Promise<{ newCounter: number }> {
  const result = await verifyAuthenticationResponse({
    response: body as unknown as AuthenticationResponseJSON,
    expectedChallenge: challenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    credential: {
      id: toUrl(row.credential_id),
      publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64')),
      counter: Number(row.sign_count),
    },
    requireUserVerification: rp.userVerification === 'required',
  }).catch((err: unknown) => {
    log(err instanceof Error ? err.message : String(err));
    return undefined;
  });
  if (!result?.verified) throw coded(ErrorCode.PasskeyVerificationFailed, VERIFICATION_FAILED);
  return { newCounter: result.authenticationInfo.newCounter };
}
