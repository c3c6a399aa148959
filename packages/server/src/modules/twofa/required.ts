import { ErrorCode, Role, TWO_FACTOR_SETUP_REQUIRED } from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { forbidden } from '../../lib/errors.js';
import type { AuthUser } from '../../core/auth-user.js';
import { twoFactorOf } from './service.js';

/** What an administrator without 2FA may still call while it is required: the setup, and their own profile. */
const OPEN_WITHOUT_TWO_FACTOR = new Set([
  'GET /api/user/2fa/status',
  'POST /api/user/2fa/setup',
  'POST /api/user/2fa/enable',
  'GET /api/user/self',
]);

/**
 * With TwoFactorRequiredForAdmins on, an administrator or root without two-factor sign-in is refused (403 with
 * TWO_FACTOR_SETUP_REQUIRED) everywhere but the setup and their profile. Costs nothing for other users.
 */
export async function assertTwoFactorWhereRequired(
  req: FastifyRequest,
  ctx: AppContext,
  user: AuthUser,
): Promise<void> {
  if (user.role < Role.Admin || !ctx.options.bool('TwoFactorRequiredForAdmins')) return;
  if (OPEN_WITHOUT_TWO_FACTOR.has(`${req.method} ${req.routeOptions.url ?? ''}`)) return;
  if (await twoFactorOf(ctx).store.isEnabled(user.id)) return;
  throw forbidden(TWO_FACTOR_SETUP_REQUIRED, ErrorCode.TwoFactorSetupRequired);
}
