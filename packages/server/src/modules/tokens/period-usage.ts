import { periodLimitValues, type PeriodRemaining, type TokenPublic } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { limitSetOfValues } from '../../core/period-limits/counters.js';
import { periodLimitsOf } from '../../core/period-limits/service.js';
import type { UserRow } from '../users/store.js';
import type { TokenRow } from './store.js';

type Ctx = Pick<AppContext, 'options' | 'redis' | 'config' | 'logDb' | 'log'>;

/**
 * What is left of the period limits of a token (and, given its owner's row, of the owner's): each configured limit
 * with its count, remainder and reset time, read from the counters the relay keeps (nothing is counted).
 */
export function periodUsageOf(
  ctx: Ctx,
  ids: { tokenId: number; userId: number },
  token: TokenRow | TokenPublic | undefined,
  user: UserRow | undefined,
): Promise<PeriodRemaining[]> {
  const t = token && limitSetOfValues(periodLimitValues(token));
  const u = user && limitSetOfValues(periodLimitValues(user));
  if (!t && !u) return Promise.resolve([]);
  return periodLimitsOf(ctx).remaining({ ...ids, token: t, user: u });
}

/** Own tokens as listed, each with what is left of its own period limits (tokens without any are left as they are). */
export async function withPeriodUsage<T extends TokenPublic>(ctx: Ctx, tokens: T[]): Promise<T[]> {
  await Promise.all(
    tokens.map(async (t) => {
      const usage = await periodUsageOf(ctx, { tokenId: t.id, userId: t.user_id }, t, undefined);
      if (usage.length) t.period_limits = usage;
    }),
  );
  return tokens;
}
