import { LogType } from '@tollway/shared';
import { sql } from 'kysely';
import type { Db } from '../../db/connect.js';
import { periodStart, SLOT_MS, WINDOW_SLOTS } from './periods.js';
import type { PeriodCounter } from './types.js';

/** What a counter starts from: a calendar count, or the rolling window's amounts per slot. */
export type PeriodSeed = number | Map<number, number>;

/**
 * A counter's start on one node after a restart, from the consume logs of its period (the charges, or the holds of
 * calls a crash cut short, as the journal wrote them): the quota since the period's start of that token or user, or
 * the number of its calls today; for the rolling window the quota per 5-minute slot. One query on the logs'
 * (user_id, created_at) index. Without consume logs (LogConsumeEnabled off) the counter starts at 0.
 */
export async function seedFromLogs(logDb: Db, c: PeriodCounter, userId: number, at: number): Promise<PeriodSeed> {
  if (c.budget) return budgetSeed(logDb, c, userId, at);
  const since =
    c.slot >= 0
      ? (c.slot - WINDOW_SLOTS + 1) * SLOT_MS
      : periodStart(c.period === 'requests_day' ? 'day' : (c.period as 'day' | 'week' | 'month'), at);
  let q = logDb.kysely
    .selectFrom('logs')
    .where('user_id', '=', userId)
    .where('type', '=', LogType.Consume)
    .where('created_at', '>=', Math.floor(since / 1000))
    // Nothing written after `at` (rows of a later time, as a clock set back in tests would see them).
    .where('created_at', '<=', Math.floor(at / 1000));
  if (c.level === 'token') q = q.where('token_id', '=', Number(c.key.split(':')[1]));
  if (c.slot >= 0) {
    const rows = await q.select(['created_at', 'quota']).execute();
    const slots = new Map<number, number>();
    for (const r of rows) {
      const slot = Math.floor((Number(r.created_at) * 1000) / SLOT_MS);
      slots.set(slot, (slots.get(slot) ?? 0) + Number(r.quota));
    }
    return slots;
  }
  const row = await q
    .select((eb) => (c.period === 'requests_day' ? eb.fn.countAll().as('n') : eb.fn.sum('quota').as('n')))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * A budget counter's start: the quota of the organization wallet's consume logs in the budget's period (all time for
 * 'total'), of the calls the budget covers (the team's, the member's, the token's, or those carrying the tag).
 */
async function budgetSeed(logDb: Db, c: PeriodCounter, walletUserId: number, at: number): Promise<number> {
  const b = c.budget!;
  let q = logDb.kysely
    .selectFrom('logs')
    .where('user_id', '=', walletUserId)
    .where('type', '=', LogType.Consume)
    .where('created_at', '<=', Math.floor(at / 1000));
  if (b.period !== 'total') q = q.where('created_at', '>=', Math.floor((c.periodStart ?? 0) / 1000));
  if (b.level === 'team') q = q.where('team_id', '=', b.targetId);
  else if (b.level === 'member') q = q.where('member_id', '=', b.targetId);
  else if (b.level === 'token') q = q.where('token_id', '=', b.targetId);
  // '_' of a tag is LIKE's any-character: escaped ('!' is no tag's character).
  else if (b.level === 'tag') q = q.where(sql<boolean>`tags like ${`%,${b.tag.replaceAll('_', '!_')},%`} escape '!'`);
  const row = await q.select((eb) => eb.fn.sum('quota').as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}
