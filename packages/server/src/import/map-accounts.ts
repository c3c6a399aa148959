import crypto from 'node:crypto';
import { QUOTA_MAX } from '@tollway/shared';
import { sealSettingSecret } from '../lib/setting-secret.js';
import type { TableSpec } from './copy.js';
import { userRef, type MapContext } from './context.js';
import { quotaProblem, RoleRule } from './rules.js';
import { deletedAt, flag, meaningful, num, text, type Row } from './values.js';

/** Sign-in ids new-api or one-api keep that Tollway has no provider for. */
const UNKNOWN_IDENTITIES = ['discord_id', 'lark_id'];
/** Users columns of new-api that Tollway has no counterpart for: listed in the summary for every row holding one. */
const NOT_CARRIED = {
  last_login_at: 'Tollway keeps no last sign-in time (its sessions record sign-ins from now on)',
  invite_rebate_eligible: 'Tollway pays no invite rebates',
} as const;
const AFF_CODE_LENGTH = 4;
/** The skip reason of a row refused for a quota value (each such row is listed with its value). */
const QUOTA_REFUSED = `a quota value is not a whole number from 0 to ${QUOTA_MAX} (refused; listed below)`;
const USER_QUOTA_COLUMNS = ['quota', 'used_quota', 'aff_quota', 'aff_history'] as const;
const TOP_UP_STATUSES = new Set(['pending', 'success', 'expired']);
/** new-api's "used" redemption status. */
const REDEMPTION_USED = 3;

export function usersSpec(ctx: MapContext): TableSpec {
  const roles = new RoleRule(ctx.merging);
  return {
    source: 'users',
    target: 'users',
    uniques: ['username', 'aff_code', 'access_token'],
    // A merge must not drop a user for a code or a token: an invite code is made anew, an access token dropped.
    renew: {
      aff_code: {
        note: 'users.aff_code was taken in the target: a new invite code was generated',
        value: (m) => newAffCode(m.id),
      },
      access_token: {
        note: 'users.access_token was taken in the target: the access token was not kept (the user makes a new one)',
        value: () => null,
      },
    },
    sums: ['quota', 'used_quota'],
    map(r, report) {
      const merged = ctx.mergedUsers.get(num(r.id));
      if (merged !== undefined) return `merged into target user ${merged} (its quota was added there; listed below)`;
      for (const [c, why] of Object.entries(NOT_CARRIED))
        if (num(r[c])) report.note(`users.${c}: ${why}`, `id ${num(r.id)}`);
      for (const c of UNKNOWN_IDENTITIES)
        if (text(r[c]))
          report.note(`users.${c}: Tollway has no such sign-in; the binding is not kept`, `id ${num(r.id)}`);
      if (text(r.stripe_customer))
        report.note('users.stripe_customer: Tollway does not keep Stripe customer ids', `id ${num(r.id)}`);
      const accessToken = text(r.access_token).trim();
      const example = `id ${num(r.id)}`;
      const bad = quotaProblem(r, USER_QUOTA_COLUMNS);
      if (bad) {
        report.refuse(example, bad);
        return QUOTA_REFUSED;
      }
      const role = roles.roleOf(r, report, example);
      let affCode = text(r.aff_code);
      if (!affCode) {
        affCode = newAffCode(num(r.id));
        report.note('users.aff_code was empty: a new invite code was generated', `id ${num(r.id)}`);
      }
      let username = text(r.username);
      const renamed = ctx.renamedUsers.get(username);
      if (renamed) {
        report.note(`users.username "${username}" imported as "${renamed}" (--rename-user)`, `id ${num(r.id)}`);
        username = renamed;
      }
      return {
        id: num(r.id) + ctx.off.users,
        username,
        password: text(r.password),
        display_name: text(r.display_name),
        role,
        status: num(r.status, 1),
        email: text(r.email),
        github_id: text(r.github_id),
        oidc_id: text(r.oidc_id),
        wechat_id: text(r.wechat_id),
        telegram_id: text(r.telegram_id),
        linux_do_id: text(r.linux_do_id),
        // Stored as Tollway stores it: a keyed digest with CRYPTO_SECRET (compared, never shown again).
        access_token: accessToken ? ctx.box.lookupForm(accessToken) : null,
        quota: num(r.quota),
        used_quota: num(r.used_quota),
        request_count: num(r.request_count),
        group: text(r.group) || 'default',
        aff_code: affCode,
        aff_count: num(r.aff_count),
        aff_quota: num(r.aff_quota),
        aff_history: num(r.aff_history),
        inviter_id: userRef(ctx, r.inviter_id),
        // A webhook secret inside is sealed as the user store seals it.
        setting: sealSettingSecret(text(r.setting), ctx.box),
        remark: text(r.remark),
        created_at: num(r.created_at),
        deleted_at: deletedAt(r.deleted_at),
      };
    },
  };
}

const newAffCode = (id: unknown) => `i${num(id)}${crypto.randomBytes(AFF_CODE_LENGTH).toString('hex')}`;

export function tokensSpec(ctx: MapContext): TableSpec {
  return {
    source: 'tokens',
    target: 'tokens',
    uniques: ['key'],
    requires: { column: 'user_id', table: 'users', what: 'owner' },
    sums: ['remain_quota'],
    map(r, report) {
      const key = text(r.key).trim().replace(/^sk-/, '');
      if (!key) return 'the token has no key';
      if (num(r.billing_type) !== 0)
        report.note(
          "tokens.billing_type: Tollway keeps no billing type per token (the user's billing preference chooses plan or wallet)",
          `id ${num(r.id)}`,
        );
      // An overdrawn limit stays exhausted (0): nothing is gained; any other value out of range refuses the row.
      let remain = num(r.remain_quota);
      if (Number.isInteger(remain) && remain < 0) {
        report.refuse(
          `id ${num(r.id)}`,
          `remain_quota ${remain} is below 0: imported as 0 (the token stays exhausted)`,
        );
        remain = 0;
      }
      const bad = quotaProblem({ remain_quota: remain, used_quota: r.used_quota }, ['remain_quota', 'used_quota']);
      if (bad) {
        report.refuse(`id ${num(r.id)}`, bad);
        return QUOTA_REFUSED;
      }
      return {
        id: num(r.id) + ctx.off.tokens,
        user_id: userRef(ctx, r.user_id),
        // Stored as the token store stores it: deterministically sealed with CRYPTO_SECRET when set.
        key: ctx.box.sealFixed(key),
        status: num(r.status, 1),
        name: text(r.name),
        created_time: num(r.created_time),
        accessed_time: num(r.accessed_time),
        expired_time: num(r.expired_time, -1),
        remain_quota: remain,
        unlimited_quota: flag(r.unlimited_quota),
        used_quota: num(r.used_quota),
        // one-api keeps a token's models in `models` and its allowed addresses in `subnet`.
        model_limits_enabled: flag(r.model_limits_enabled) || (text(r.models) ? 1 : 0),
        model_limits: text(r.model_limits) || text(r.models),
        allow_ips: text(r.allow_ips) || text(r.subnet),
        group: text(r.group),
        cross_group_retry: flag(r.cross_group_retry),
        rate_limit_enabled: 0,
        rate_limit_period: 60,
        rate_limit_count: 1000,
        rate_limit_success: 10,
        deleted_at: deletedAt(r.deleted_at),
      };
    },
  };
}

export function redemptionsSpec(ctx: MapContext): TableSpec {
  return {
    source: 'redemptions',
    target: 'redemptions',
    uniques: ['key'],
    map(r, report) {
      if (deletedAt(r.deleted_at)) return 'deleted in the source (Tollway deletes codes outright)';
      const bad = quotaProblem(r, ['quota']);
      if (bad) {
        report.refuse(`id ${num(r.id)}`, bad);
        return QUOTA_REFUSED;
      }
      const status = num(r.status, 1);
      return {
        id: num(r.id) + ctx.off.redemptions,
        user_id: userRef(ctx, r.user_id),
        // PostgreSQL pads char(32) columns.
        key: text(r.key).trim(),
        status,
        name: text(r.name),
        quota: num(r.quota),
        created_time: num(r.created_time),
        redeemed_time: num(r.redeemed_time),
        used_user_id: userRef(ctx, r.used_user_id),
        is_gift: 0,
        max_uses: 1,
        used_count: status === REDEMPTION_USED ? 1 : 0,
        valid_from: 0,
        valid_until: num(r.expired_time),
      };
    },
    // A used code keeps its one use, so the user cannot redeem it again.
    async after(trx, rows: Row[]) {
      const uses = rows
        .filter((r) => r.status === REDEMPTION_USED && num(r.used_user_id) > 0)
        .map((r) => ({ redemption_id: r.id, user_id: r.used_user_id, quota: r.quota, created_time: r.redeemed_time }));
      if (uses.length > 0) await trx.insertInto('redemption_uses').values(uses).execute();
    },
  };
}

export function topUpsSpec(ctx: MapContext): TableSpec {
  return {
    source: 'top_ups',
    target: 'top_ups',
    uniques: ['trade_no'],
    map(r, report) {
      const tradeNo = text(r.trade_no);
      if (!tradeNo) return 'the order has no trade number';
      let status = text(r.status);
      if (!TOP_UP_STATUSES.has(status)) {
        report.note(
          `top_ups.status "${status}": Tollway knows pending, success and expired; stored as expired`,
          `id ${num(r.id)}`,
        );
        status = 'expired';
      }
      if (meaningful(r.currency))
        report.note('top_ups.currency: Tollway keeps no currency per order', `id ${num(r.id)}`);
      return {
        id: num(r.id) + ctx.off.top_ups,
        user_id: userRef(ctx, r.user_id),
        amount: num(r.amount),
        money: num(r.money),
        trade_no: tradeNo,
        payment_method: text(r.payment_method),
        create_time: num(r.create_time),
        complete_time: num(r.complete_time),
        status,
      };
    },
  };
}
