import { UserManageActions } from '@tollway/shared';
import type { RouteAudit } from '../../http/route.js';
import { isSecretOption, maskSecret } from './mask.js';

type Body = Record<string, unknown> | undefined;
const bodyOf = (body: unknown): Body =>
  body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;

/** A sign-in route: the actor is the signed-in user of the result (none while a second factor is pending). */
function signIn(action: string): RouteAudit {
  return {
    action,
    target: 'user',
    actor: (c) => {
      const d = bodyOf(c.data);
      return typeof d?.id === 'number' && typeof d.role === 'number'
        ? { id: d.id, username: String(d.username ?? ''), role: d.role }
        : undefined;
    },
    targetId: (c) => bodyOf(c.data)?.id as number | undefined,
    fields: () => undefined,
  };
}

/**
 * The names a computed action can take, keyed like auditCatalog (the console words each one; a unit test checks
 * every computed action is listed here).
 */
export const computedActions: Record<string, readonly string[]> = {
  'POST /api/user/manage': [...UserManageActions.map((a) => `user.${a}`), 'user.manage'],
};

/**
 * Audit names for routes declared elsewhere whose default name or target says too little (keyed by
 * "METHOD url"). A route's own `audit` field wins over this table.
 */
export const auditCatalog: Record<string, RouteAudit | false> = {
  // A secret option's value never reaches the detail; the option's name is the target.
  'PUT /api/option/': {
    action: 'option.update',
    target: 'option',
    targetId: (c) => String(bodyOf(c.body)?.key ?? ''),
    fields: (c) => {
      const key = String(bodyOf(c.body)?.key ?? '');
      const value = bodyOf(c.body)?.value;
      return { option: key, value: isSecretOption(key) ? maskSecret(value) : value };
    },
  },
  'POST /api/option/rest_model_ratio': {
    action: 'pricing.reset_model_ratio',
    target: 'pricing',
    targetId: () => 'ModelRatio',
  },
  'POST /api/user/manage': { action: (c) => `user.${String(bodyOf(c.body)?.action ?? 'manage')}`, target: 'user' },
  'POST /api/user/topup/complete': {
    action: 'topup.complete',
    target: 'topup',
    targetId: (c) => String(bodyOf(c.body)?.trade_no ?? ''),
  },
  'POST /api/channel/batch': { action: 'channel.delete_batch', target: 'channel' },
  'PUT /api/channel/tag': {
    action: 'channel.tag_update',
    target: 'channel_tag',
    targetId: (c) => String(bodyOf(c.body)?.tag ?? ''),
  },
  'POST /api/channel/batch/tag': { action: 'channel.batch_tag', target: 'channel' },
  'POST /api/channel/tag/enabled': {
    action: 'channel.tag_enable',
    target: 'channel_tag',
    targetId: (c) => String(bodyOf(c.body)?.tag ?? ''),
  },
  'POST /api/channel/tag/disabled': {
    action: 'channel.tag_disable',
    target: 'channel_tag',
    targetId: (c) => String(bodyOf(c.body)?.tag ?? ''),
  },
  'DELETE /api/redemption/delete-by-name': {
    action: 'redemption.delete_by_name',
    target: 'redemption',
    targetId: (c) => String(c.query?.name ?? ''),
  },
  // Lists an upstream's models with a key; changes nothing.
  'POST /api/channel/fetch_models': false,
  // Sign-ins of administrators: the password step when it completes the sign-in, or the second-factor step.
  'POST /api/user/login': signIn('auth.login'),
  'POST /api/user/login/2fa': signIn('auth.login_2fa'),
  'POST /api/user/passkey/login/finish': signIn('auth.login_passkey'),
  'POST /api/auth/external/:provider/jwt/login': signIn('auth.login_jwt'),
  'POST /api/auth/external/:provider/header/login': signIn('auth.login_header'),
};
