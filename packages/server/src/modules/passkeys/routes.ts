import {
  idParam,
  passkeyCredentialBody,
  passkeyLoginBeginBody,
  passkeyOptions,
  passkeyStatus,
  userPublic,
} from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { passkeysOf } from './service.js';

/** Passkeys (WebAuthn) at new-api's addresses: sign-in, the caller's own passkey, root's reset. */
export function passkeyRoutes(r: Router): void {
  r.add({
    method: 'POST',
    url: '/api/user/passkey/login/begin',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'Begin a passkey sign-in: WebAuthn request options (data.options.publicKey) for any passkey of this site, or {username}, or {flow_token} of a sign-in waiting for its second factor',
    tags: ['auth'],
    body: passkeyLoginBeginBody,
    response: passkeyOptions,
    handler: ({ ctx, req, body }) => passkeysOf(ctx).loginBegin(req, body),
  });
  r.add({
    method: 'POST',
    url: '/api/user/passkey/login/finish',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "Finish a passkey sign-in with the browser's assertion: sets the session cookie (or completes the pending two-factor sign-in)",
    tags: ['auth'],
    body: passkeyCredentialBody,
    response: userPublic,
    successMessage: 'login success',
    handler: ({ ctx, req, reply, body }) => passkeysOf(ctx).loginFinish(req, reply, body),
  });
  r.add({
    method: 'GET',
    url: '/api/user/passkey',
    level: 'user',
    summary: "The caller's passkey: {enabled, last_used_at, backup_eligible, backup_state}",
    tags: ['self'],
    response: passkeyStatus,
    handler: ({ ctx, user }) => passkeysOf(ctx).status(user!.id),
  });
  r.add({
    method: 'POST',
    url: '/api/user/passkey/register/begin',
    level: 'user',
    summary:
      'Begin registering a passkey (replaces the one held): WebAuthn creation options; with 2FA on, after POST /api/verify',
    tags: ['self'],
    response: passkeyOptions,
    handler: ({ ctx, req, user }) => passkeysOf(ctx).registerBegin(req, user!),
  });
  r.add({
    method: 'POST',
    url: '/api/user/passkey/register/finish',
    level: 'user',
    summary: "Finish registering a passkey with the browser's attestation",
    tags: ['self'],
    body: passkeyCredentialBody,
    successMessage: 'passkey registered',
    handler: async ({ ctx, req, user, body }) => {
      await passkeysOf(ctx).registerFinish(req, user!, body);
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/passkey/verify/begin',
    level: 'user',
    summary: 'Begin verifying the session with the caller\'s passkey (then POST /api/verify {method:"passkey"})',
    tags: ['self'],
    response: passkeyOptions,
    handler: ({ ctx, req, user }) => passkeysOf(ctx).verifyBegin(req, user!),
  });
  r.add({
    method: 'POST',
    url: '/api/user/passkey/verify/finish',
    level: 'user',
    rateLimit: 'critical',
    summary:
      'Finish the passkey verification with the browser\'s assertion; POST /api/verify {method:"passkey"} within a minute',
    tags: ['self'],
    body: passkeyCredentialBody,
    successMessage: 'passkey verified',
    handler: async ({ ctx, req, user, body }) => {
      await passkeysOf(ctx).verifyFinish(req, user!, body);
      return undefined;
    },
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/passkey',
    level: 'user',
    summary: "Remove the caller's passkey (after POST /api/verify); the sessions it signed in end",
    tags: ['self'],
    successMessage: 'passkey removed',
    handler: async ({ ctx, req, user }) => {
      await passkeysOf(ctx).remove(req, user!);
      return undefined;
    },
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/:id/reset_passkey',
    level: 'admin',
    summary: "Remove a user's passkey and end the sessions it signed in (only for users below the caller's role)",
    tags: ['users'],
    params: idParam,
    successMessage: 'the passkey of the user has been reset',
    audit: { action: 'user.reset_passkey', target: 'user' },
    handler: async ({ ctx, user, params }) => {
      await passkeysOf(ctx).adminReset(user!, params.id);
      return undefined;
    },
  });
}
