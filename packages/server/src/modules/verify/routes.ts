import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { secureVerificationOf } from './service.js';

const CODE_MAX = 64;
const PASSWORD_MAX = 256;

const verifyBody = z.object({
  /** new-api's console sends '2fa', or 'passkey' after POST /api/user/passkey/verify/finish. */
  method: z.enum(['2fa', 'password', 'passkey']).default('2fa'),
  code: z.string().max(CODE_MAX).optional(),
  password: z.string().max(PASSWORD_MAX).optional(),
});

/** POST /api/verify: step-up verification of the caller's session (five minutes) before a channel key is shown. */
export function secureVerifyRoutes(r: Router): void {
  r.add({
    method: 'POST',
    url: '/api/verify',
    level: 'user',
    rateLimit: 'critical',
    summary:
      'Verify the signed-in session for five minutes: {method:"2fa", code} (code or backup code), {method:"passkey"} within a minute of POST /api/user/passkey/verify/finish, or {method:"password", password} without 2FA',
    tags: ['self'],
    body: verifyBody,
    response: z.object({ verified: z.literal(true), expires_at: z.number().int() }),
    successMessage: 'verified',
    // The code or password never reaches the audit detail.
    audit: { action: 'auth.secure_verify', target: 'user', fields: (c) => ({ method: c.body?.method }) },
    handler: ({ ctx, req, body }) => secureVerificationOf(ctx).verify(req, body),
  });
}
