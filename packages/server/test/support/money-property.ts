/**
 * The money property harness: Σ value delivered ≤ Σ charged ≤ starting balance, on a real gateway.
 *
 * Reusable by every billed surface's property test (chat and its siblings here; realtime, audio, images and tasks
 * bring their own mock and `deliveredValue` computation and reuse the rest; MCP tool calls at a per-call price are
 * driven by ./money-mcp.ts in money-mcp-property.test.ts):
 *
 * - `useMoneyGateway(dialect, { redis })` starts a real gateway (SQLite, PostgreSQL or MariaDB; with `redis: true` a
 *   Redis ledger, i.e. cluster mode, on a prefix of the suite's own) and a mock vendor (`mock`, default the
 *   money vendor of ./money-vendor.ts, which honours output caps unless told not to). With the money vendor it also
 *   adds one channel per vendor × behaviour, all priced at `MONEY_PRICE` (`model(vendor, behaviour)` names the model).
 * - `budgetedKey(gw, quota, budget)` makes an organization whose wallet holds `quota` with a day budget on it and
 *   an organization token: the same invariant holds, and a hard budget's limit bounds Σ charged too.
 * - `fundedKey(gw, quota, plan?)` makes a fresh user with exactly `quota` and an unlimited `sk-` key: each property
 *   run gets its own balance, so runs never see each other's money. With `plan`, part of the quota sits in a
 *   subscription plan and the user's billing preference decides what calls draw from.
 * - `callSurface(gw, surface, key, call)` makes one call in the caller's protocol (OpenAI chat, Responses,
 *   Anthropic Messages, Gemini generateContent; plain or streamed), optionally cut by the client after some
 *   words, and returns what the client actually received (status, output tokens read from the text it parsed).
 * - `deliveredValue(received)` prices what the client received at the model's price (the vendor's prompt count,
 *   the output tokens received), 0 for a refused call.
 * - `settledMoney(gw, userId)` waits until no call holds a reservation and the writer has committed, then returns
 *   Σ charged (consume logs), the balance left in the database, and Σ `charge_shortfall` of the logs.
 * - `assertMoneyInvariant(start, delivered, money)` states the invariant once (no shortfall allowed unless the test's
 *   upstream ignores the caps it is sent).
 */
import { computeQuota, type BillingPreference, type Price, type RatioPrice } from '@tollway/shared';
import { expect } from 'vitest';
import { afterAll } from 'vitest';
import type { DialectName } from '../../src/db/connect.js';
import { createUserClient } from './app.js';
import { useGateway, type GatewayFixture } from './fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from './gateway.js';
import { startMoneyVendor, WORD, type MoneyVendor } from './money-vendor.js';
import { bindPlan, createPlan } from './subscriptions.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from './redis.js';
import { insertOrg, insertOrgToken } from './org-rows.js';

/** The price of every money model: ratio 2 (input 2 quota per token), completion ratio 5 (10 quota per output token). */
export const MONEY_RATIO = 2;
export const MONEY_COMPLETION_RATIO = 5;
export const MONEY_PRICE: RatioPrice = {
  mode: 'ratio',
  modelRatio: MONEY_RATIO,
  completionRatio: MONEY_COMPLETION_RATIO,
  cacheRatio: 1,
  cacheCreationRatio: 1,
  groupRatio: 1,
};

export type MoneyVendorKind = 'openai' | 'anthropic' | 'gemini';
/** Behaviours of the money vendor (its API key flags): `honour` the cap, `ignore` it, `nousage`, and `slow` streams. */
export const MONEY_BEHAVIOURS = ['honour', 'ignore', 'nousage', 'honour-slow', 'ignore-slow'] as const;
export type MoneyBehaviour = (typeof MONEY_BEHAVIOURS)[number];
const CHANNEL_TYPE: Record<MoneyVendorKind, number> = { openai: 1, anthropic: 14, gemini: 24 };

export const model = (vendor: MoneyVendorKind, behaviour: MoneyBehaviour): string => `money-${vendor}-${behaviour}`;

export interface MoneyGatewayOptions<M> {
  /** Cluster mode: balances in Redis (the Redis ledger) as well as the database. */
  redis?: boolean;
  /** Another mock (realtime, media, tasks): no money channels are added then; add your own in `ready`. */
  mock?: () => Promise<M>;
  env?: Record<string, string>;
  timeout?: number;
  /** 'expr': the money models are priced by MONEY_EXPR (billing_setting), the same price as MONEY_PRICE's ratios. */
  pricing?: 'ratio' | 'expr';
}

/**
 * MONEY_PRICE as a billing expression (docs/using/pricing.md): ratio 2 is $4 per 1M input tokens, completion ratio 5
 * makes output $20; a second tier above a million input tokens (never reached here) keeps the expression tiered.
 */
export const MONEY_EXPR = 'len <= 1000000 ? tier("base", p * 4 + c * 20) : tier("long", p * 8 + c * 40)';

/**
 * A gateway for money property tests (see the module comment); `ready` runs once it is up. The returned object is
 * filled in beforeAll.
 */
export function useMoneyGateway<M extends { close(): Promise<void> } = MoneyVendor>(
  dialect: DialectName,
  opts: MoneyGatewayOptions<M> = {},
  ready?: (gw: GatewayFixture<M>) => unknown,
): GatewayFixture<M> {
  const prefix = newRedisPrefix();
  const env = { ...(opts.redis ? { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: prefix } : {}), ...opts.env };
  const own = !opts.mock;
  const gw = useGateway<M>(
    dialect,
    { env, timeout: opts.timeout ?? 60_000, mock: opts.mock ?? (startMoneyVendor as unknown as () => Promise<M>) },
    async (g) => {
      if (own) {
        const models: string[] = [];
        for (const vendor of Object.keys(CHANNEL_TYPE) as MoneyVendorKind[]) {
          for (const behaviour of MONEY_BEHAVIOURS) {
            const name = model(vendor, behaviour);
            models.push(name);
            const url = (g.mock as unknown as MoneyVendor).url;
            await addChannel(g.root, { name, key: behaviour, baseUrl: url, models: name, type: CHANNEL_TYPE[vendor] });
          }
        }
        await setOption(g, 'ModelRatio', Object.fromEntries(models.map((m) => [m, MONEY_RATIO])));
        await setOption(g, 'CompletionRatio', Object.fromEntries(models.map((m) => [m, MONEY_COMPLETION_RATIO])));
        if (opts.pricing === 'expr') {
          await setOption(g, 'billing_setting.billing_mode', Object.fromEntries(models.map((m) => [m, 'tiered_expr'])));
          await setOption(g, 'billing_setting.billing_expr', Object.fromEntries(models.map((m) => [m, MONEY_EXPR])));
        }
      }
      await ready?.(g);
    },
  );
  if (opts.redis) afterAll(() => dropRedisKeys(prefix));
  return gw;
}

async function setOption<M>(g: GatewayFixture<M>, key: string, value: unknown): Promise<void> {
  const res = await g.root.call('PUT', '/api/option/', { key, value: JSON.stringify(value) });
  if (!res.body.success) throw new Error(`option ${key}: ${res.body.message}`);
}

let users = 0;
/** A fresh user holding exactly `quota`, with an unlimited `sk-` key. */
export async function fundedKey<M>(
  gw: GatewayFixture<M>,
  quota: number,
  plan?: MoneyPlan,
): Promise<{ userId: number; key: string }> {
  const u = await createUserClient(gw.t.app, gw.root, `money${process.pid % 1000}x${++users}`);
  // With a plan, `quota` is split: `plan.quota` in a subscription, the rest in the wallet (settledMoney adds both).
  const inPlan = plan && plan.quota > 0 ? Math.min(plan.quota, quota) : 0;
  await setQuota(gw.root, u.userId!, quota - inPlan);
  if (plan) {
    if (inPlan > 0) {
      const made = await createPlan(gw.root, { title: `money plan ${users}`, total_amount: inPlan });
      await bindPlan(gw.root, u.userId!, made.id);
    }
    const pref = await u.call('PUT', '/api/subscription/self/preference', { billing_preference: plan.preference });
    if (!pref.body.success) throw new Error(`preference refused: ${pref.body.message}`);
  }
  const { key } = await addToken(gw.t, u.userId!, {});
  return { userId: u.userId!, key };
}

let orgs = 0;
/**
 * A fresh organization whose wallet holds exactly `quota`, with a budget on the organization (`limit`, per day,
 * hard or soft) and an organization token: the wallet account's id (settledMoney reads it) and the `sk-` key.
 */
export async function budgetedKey<M>(
  gw: GatewayFixture<M>,
  quota: number,
  budget: { limit: number; hard: boolean },
): Promise<{ userId: number; key: string }> {
  const org = await insertOrg(gw.t, `money-org-${process.pid % 1000}x${++orgs}`, { quota });
  const res = await gw.root.call('POST', `/api/org/${org.orgId}/budgets`, {
    level: 'org',
    period: 'day',
    limit_quota: budget.limit,
    hard: budget.hard,
  });
  if (!res.body.success) throw new Error(`budget refused: ${res.body.message}`);
  const { key } = await insertOrgToken(gw.t, org, 0);
  return { userId: org.walletUserId, key };
}

/** A subscription plan holding part of a property run's money, and the billing preference that draws on it. */
export interface MoneyPlan {
  quota: number;
  preference: BillingPreference;
}

export type MoneySurface = 'chat' | 'responses' | 'messages' | 'gemini';

export interface MoneyCall {
  model: string;
  /** Words (tokens) asked of the vendor per choice. */
  words: number;
  stream: boolean;
  /** The client's output cap (per choice); none when absent (Messages always sends one: Anthropic requires it). */
  cap?: number;
  /** Choices (OpenAI chat `n`, Gemini `candidateCount`). */
  choices?: number;
  /** The client aborts once it has read at least this many output tokens (streams). */
  cutAfter?: number;
}

export interface Received {
  status: number;
  /** Output tokens the client read (complete events / the whole body only). */
  outputTokens: number;
  /** Prompt tokens as the vendor counts them (charged by the vendor once the call reached it). */
  promptTokens: number;
}

const PROMPT_TEXT = (words: number) => `Please answer with words:${words} and nothing else.`;

function requestOf(
  gw: { base: string },
  surface: MoneySurface,
  c: MoneyCall,
): { url: string; body: Record<string, unknown>; headers: Record<string, string> } {
  const text = PROMPT_TEXT(c.words);
  const n = c.choices && c.choices > 1 ? c.choices : undefined;
  switch (surface) {
    case 'chat':
      return {
        url: '/v1/chat/completions',
        headers: {},
        body: {
          model: c.model,
          stream: c.stream,
          messages: [{ role: 'user', content: text }],
          ...(c.cap ? { max_tokens: c.cap } : {}),
          ...(n ? { n } : {}),
        },
      };
    case 'responses':
      return {
        url: '/v1/responses',
        headers: {},
        body: { model: c.model, stream: c.stream, input: text, ...(c.cap ? { max_output_tokens: c.cap } : {}) },
      };
    case 'messages':
      return {
        url: '/v1/messages',
        headers: { 'anthropic-version': '2023-06-01' },
        body: {
          model: c.model,
          stream: c.stream,
          max_tokens: c.cap ?? 100_000,
          messages: [{ role: 'user', content: text }],
        },
      };
    case 'gemini': {
      const config = { ...(c.cap ? { maxOutputTokens: c.cap } : {}), ...(n ? { candidateCount: n } : {}) };
      const method = c.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      return {
        url: `/v1beta/models/${c.model}:${method}`,
        headers: {},
        body: {
          contents: [{ role: 'user', parts: [{ text }] }],
          ...(Object.keys(config).length ? { generationConfig: config } : {}),
        },
      };
    }
  }
}

type Json = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The output text in one parsed answer or stream event, per protocol. */
function textIn(surface: MoneySurface, j: Json, streamed: boolean): string {
  if (surface === 'chat')
    return ((j.choices as Json[] | undefined) ?? [])
      .map((c) => str(((streamed ? c.delta : c.message) as Json | undefined)?.content))
      .join('');
  if (surface === 'messages') {
    if (streamed) return j.type === 'content_block_delta' ? str((j.delta as Json).text) : '';
    return ((j.content as Json[] | undefined) ?? []).map((p) => str(p.text)).join('');
  }
  if (surface === 'gemini')
    return ((j.candidates as Json[] | undefined) ?? [])
      .map(
        (c) => ((c.content as Json | undefined)?.parts as Json[] | undefined)?.map((p) => str(p.text)).join('') ?? '',
      )
      .join('');
  if (streamed) return j.type === 'response.output_text.delta' ? str(j.delta) : '';
  return ((j.output as Json[] | undefined) ?? [])
    .map((o) => ((o.content as Json[] | undefined) ?? []).map((p) => str(p.text)).join(''))
    .join('');
}

/** Output tokens in received text: the money vendor's words (one o200k token each). */
export const tokensIn = (text: string): number => text.split(WORD).length - 1;

/**
 * One call in the caller's protocol; what the client received. A stream is read event by event; with `cutAfter`
 * the client aborts once it has read that many output tokens.
 */
export async function callSurface(
  gw: { base: string },
  surface: MoneySurface,
  key: string,
  c: MoneyCall,
): Promise<Received> {
  const r = requestOf(gw, surface, c);
  const abort = new AbortController();
  const headers = {
    authorization: `Bearer ${key}`,
    'x-api-key': key,
    'content-type': 'application/json',
    ...r.headers,
  };
  const res = await fetch(`${gw.base}${r.url}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(r.body),
    signal: abort.signal,
  });
  const promptTokens = (await import('gpt-tokenizer')).countTokens(PROMPT_TEXT(c.words));
  if (res.status !== 200) {
    await res.text();
    return { status: res.status, outputTokens: 0, promptTokens };
  }
  if (!c.stream)
    return { status: 200, outputTokens: tokensIn(textIn(surface, (await res.json()) as Json, false)), promptTokens };
  let buffer = '';
  let tokens = 0;
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .find((l) => l.startsWith('data:'))
          ?.slice(5)
          .trim();
        if (!data || data === '[DONE]') continue;
        tokens += tokensIn(textIn(surface, JSON.parse(data) as Json, true));
      }
      if (c.cutAfter !== undefined && tokens >= c.cutAfter) {
        abort.abort();
        break;
      }
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  return { status: 200, outputTokens: tokens, promptTokens };
}

/** What the client received, at the model's price (`price`, MONEY_PRICE by default); a refused call is worth 0. */
export function deliveredValue(r: Received, price: Price = MONEY_PRICE): number {
  if (r.status !== 200) return 0;
  return computeQuota(price, { promptTokens: r.promptTokens, completionTokens: r.outputTokens }, 500_000);
}

export interface SettledMoney {
  /** Σ quota of the user's consume logs. */
  charged: number;
  /** users.quota in the database. */
  balance: number;
  /** Σ charge_shortfall of the user's consume logs. */
  shortfall: number;
  calls: number;
}

/** Waits until no call holds a reservation and everything is committed; the user's money as the database has it. */
export async function settledMoney<M>(gw: GatewayFixture<M>, userId: number): Promise<SettledMoney> {
  const writer = gw.t.runtime.ctx.relay.writer;
  for (let i = 0; writer.health().openCalls > 0; i++) {
    if (i > 500) throw new Error('calls still hold reservations after 10 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  await drainWriter(gw.t);
  const k = gw.t.database.db.kysely;
  const logs = await k
    .selectFrom('logs')
    .select(['quota', 'other'])
    .where('user_id', '=', userId)
    .where('type', '=', 2)
    .execute();
  const user = await k.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
  // What the user's plans have left counts as balance beside the wallet (fundedKey split the money between them).
  const plans = await k
    .selectFrom('user_subscriptions')
    .select(['amount_total', 'amount_used'])
    .where('user_id', '=', userId)
    .execute();
  const inPlans = plans.reduce((sum, p) => sum + Number(p.amount_total) - Number(p.amount_used), 0);
  let charged = 0;
  let shortfall = 0;
  for (const l of logs) {
    charged += Number(l.quota);
    shortfall += Number((JSON.parse(l.other || '{}') as { charge_shortfall?: number }).charge_shortfall ?? 0);
  }
  return { charged, balance: Number(user.quota) + inPlans, shortfall, calls: logs.length };
}

/**
 * The invariant, stated once: Σ delivered ≤ Σ charged ≤ start, and the balance is what is left (never negative).
 * With `upstreamIgnoredCaps` (a vendor that answers past the cap it was sent, where the balance did not bind that
 * cap) a shortfall may appear, but never silently: Σ delivered ≤ Σ charged + Σ charge_shortfall recorded.
 */
export function assertMoneyInvariant(
  start: number,
  delivered: number,
  m: SettledMoney,
  upstreamIgnoredCaps = false,
): void {
  if (upstreamIgnoredCaps)
    expect(delivered, `delivered ${delivered} > charged ${m.charged} + shortfall ${m.shortfall}`).toBeLessThanOrEqual(
      m.charged + m.shortfall,
    );
  else {
    expect(delivered, `delivered ${delivered} > charged ${m.charged}`).toBeLessThanOrEqual(m.charged);
    expect(m.shortfall).toBe(0);
  }
  expect(m.charged).toBeLessThanOrEqual(start);
  expect(m.balance).toBe(start - m.charged);
  expect(m.balance).toBeGreaterThanOrEqual(0);
}
