import { z } from 'zod';

/** Longest base64url field of a passkey response (attestation objects are a few hundred bytes to a few KB). */
const B64_MAX = 16_384;
const b64url = z
  .string()
  .max(B64_MAX)
  .regex(/^[A-Za-z0-9_-]*={0,2}$/, 'not base64url');

/**
 * A browser's PublicKeyCredential as JSON (WebAuthn's toJSON shape, which new-api's consoles also build): a
 * registration carries attestationObject, an assertion authenticatorData and signature.
 */
export const passkeyCredentialBody = z.object({
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal('public-key'),
  authenticatorAttachment: z.string().max(32).nullish(),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional(),
  response: z.object({
    clientDataJSON: b64url.min(1),
    attestationObject: b64url.optional(),
    authenticatorData: b64url.optional(),
    signature: b64url.optional(),
    userHandle: b64url.nullish(),
    transports: z.array(z.string().max(32)).max(16).optional(),
    publicKey: b64url.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
  }),
});
export type PasskeyCredentialBody = z.infer<typeof passkeyCredentialBody>;

/**
 * The passkey sign-in's begin: nothing (any passkey of this site, chosen in the browser), a user name (that user's
 * passkey), or the flow_token of a password sign-in waiting for its second factor (that user's passkey completes it).
 */
export const passkeyLoginBeginBody = z
  .object({
    username: z.string().trim().max(64).optional(),
    flow_token: z.string().max(128).optional(),
  })
  .optional();

/** A begin answer: WebAuthn options under `publicKey`, as new-api's consoles read them (data.options.publicKey). */
export const passkeyOptions = z.object({ options: z.object({ publicKey: z.record(z.string(), z.unknown()) }) });

export const passkeyStatus = z.object({
  enabled: z.boolean(),
  /** ISO time of the last sign-in or verification with it (new-api sends a time), null before the first. */
  last_used_at: z.string().nullable().optional(),
  created_at: z.string().optional(),
  backup_eligible: z.boolean().optional(),
  backup_state: z.boolean().optional(),
});
export type PasskeyStatus = z.infer<typeof passkeyStatus>;
