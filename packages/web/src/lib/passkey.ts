/**
 * The browser side of passkeys (WebAuthn): the server's options arrive as JSON with base64url binary fields
 * (new-api's shape, data.options.publicKey); navigator.credentials wants ArrayBuffers and answers with them, and the
 * server takes the answer back as JSON with base64url fields.
 */

type Json = Record<string, unknown>;

export function base64UrlToBuffer(value: string): ArrayBuffer {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (value.length % 4)) % 4);
  const raw = atob(base64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes.buffer;
}

export function bufferToBase64Url(buffer: ArrayBuffer | ArrayBufferView | null | undefined): string {
  if (!buffer) return '';
  const bytes =
    buffer instanceof ArrayBuffer
      ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let raw = '';
  for (const b of bytes) raw += String.fromCharCode(b);
  return btoa(raw).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** True where this browser can use passkeys at all (a secure page with WebAuthn). */
export const passkeySupported = (): boolean =>
  typeof window !== 'undefined' && window.isSecureContext && typeof window.PublicKeyCredential === 'function';

/** The WebAuthn options inside a begin call's answer ({options: {publicKey}}, as new-api sends them). */
export function optionsOf(data: unknown): Json {
  const d = (data ?? {}) as Json;
  const options = (d.options ?? d) as Json;
  const publicKey = (options.publicKey ?? options.response ?? options) as Json;
  if (typeof publicKey.challenge !== 'string') throw new Error('passkey options are missing');
  return publicKey;
}

const withIds = (list: unknown): PublicKeyCredentialDescriptor[] | undefined =>
  Array.isArray(list)
    ? (list as { id: string; type?: string; transports?: AuthenticatorTransport[] }[]).map((c) => ({
        type: 'public-key',
        id: base64UrlToBuffer(c.id),
        ...(c.transports ? { transports: c.transports } : {}),
      }))
    : undefined;

/** A credential as the server's JSON: the fields both ceremonies share, then the ceremony's own `response` fields. */
const credentialJson = (cred: PublicKeyCredential, response: Json): Json => ({
  id: cred.id,
  rawId: bufferToBase64Url(cred.rawId),
  type: cred.type,
  authenticatorAttachment: cred.authenticatorAttachment ?? undefined,
  clientExtensionResults: cred.getClientExtensionResults(),
  response: { clientDataJSON: bufferToBase64Url(cred.response.clientDataJSON), ...response },
});

/** Runs navigator.credentials.create for registration options; the credential as the server's JSON. */
export async function createPasskey(options: Json): Promise<Json> {
  const user = options.user as { id: string; name: string; displayName: string };
  const publicKey = {
    ...options,
    challenge: base64UrlToBuffer(options.challenge as string),
    user: { ...user, id: base64UrlToBuffer(user.id) },
    excludeCredentials: withIds(options.excludeCredentials) ?? [],
  } as unknown as PublicKeyCredentialCreationOptions;
  const cred = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null;
  if (!cred) throw new Error('no passkey was created');
  const response = cred.response as AuthenticatorAttestationResponse;
  return credentialJson(cred, {
    attestationObject: bufferToBase64Url(response.attestationObject),
    transports: typeof response.getTransports === 'function' ? response.getTransports() : [],
  });
}

/** Runs navigator.credentials.get for request options; the assertion as the server's JSON. */
export async function getPasskey(options: Json): Promise<Json> {
  const publicKey = {
    ...options,
    challenge: base64UrlToBuffer(options.challenge as string),
    allowCredentials: withIds(options.allowCredentials) ?? [],
  } as unknown as PublicKeyCredentialRequestOptions;
  const cred = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential | null;
  if (!cred) throw new Error('no passkey was chosen');
  const response = cred.response as AuthenticatorAssertionResponse;
  return credentialJson(cred, {
    authenticatorData: bufferToBase64Url(response.authenticatorData),
    signature: bufferToBase64Url(response.signature),
    userHandle: response.userHandle ? bufferToBase64Url(response.userHandle) : undefined,
  });
}

/** The user closed or refused the browser's passkey prompt (nothing to report). */
export const isPromptDismissed = (err: unknown): boolean =>
  err instanceof DOMException && (err.name === 'NotAllowedError' || err.name === 'AbortError');
