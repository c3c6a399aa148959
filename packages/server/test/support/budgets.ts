import { LogType, type Budget, type BudgetBody } from '@tollway/shared';
import type { Client, TestApp } from './app.js';
import { drainWriter } from './gateway.js';
import { FIXED_MODEL } from './period-limits.js';

/** POST /api/org/:id/budgets as `who`; the budget (throws on a refusal). */
export async function createBudget(who: Client, orgId: number, body: Partial<BudgetBody>): Promise<Budget> {
  const res = await who.call<Budget>('POST', `/api/org/${orgId}/budgets`, body);
  if (!res.body.success) throw new Error(`budget refused: ${res.body.message}`);
  return res.body.data!;
}

/** An OpenAI chat call with optional extra headers (the x-tollway-tags header). */
export function taggedCall(base: string, key: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: FIXED_MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'count me' }] }),
  });
}

/** Fires `n` calls at once; the statuses and the answers' bodies, in order. */
export async function concurrently(
  n: number,
  call: () => Promise<Response>,
): Promise<{ statuses: number[]; bodies: unknown[]; retryAfter: (string | null)[] }> {
  const responses = await Promise.all(Array.from({ length: n }, call));
  const bodies = await Promise.all(responses.map((r) => r.json() as Promise<unknown>));
  return {
    statuses: responses.map((r) => r.status),
    bodies,
    retryAfter: responses.map((r) => r.headers.get('retry-after')),
  };
}

/** The consume log rows of a wallet account (after the writer committed everything queued). */
export async function consumeLogs(t: TestApp, userId: number) {
  await drainWriter(t);
  return t.runtime.ctx.logDb.kysely
    .selectFrom('logs')
    .select(['quota', 'member_id', 'team_id', 'tags', 'billed_quota', 'token_id'])
    .where('user_id', '=', userId)
    .where('type', '=', LogType.Consume)
    .execute();
}

/** The sum of the consume logs' quota of a wallet account. */
export async function spent(t: TestApp, userId: number): Promise<number> {
  return (await consumeLogs(t, userId)).reduce((s, r) => s + Number(r.quota), 0);
}
