import { computeQuota } from '@tollway/shared';
import { recordShortfall } from '../../accounting/charge-metrics.js';
import { combineHolds, type Hold, type ReserveTarget } from '../../accounting/ledger.js';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import { observeRealtimeCharge } from '../../observability/relay-observer.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { resolvePrice, scaledPrice, type ResolvedPrice } from '../billing/price.js';
import type { RelayContext } from '../pipeline/services.js';
import { RelayError } from '../pipeline/errors.js';
import { PERIOD_LIMIT_CODE } from '../limits/period-refusal.js';
import { newRequestId, settleCall } from '../billing/settle.js';
import { journalCall, refundHold } from '../pipeline/lifecycle.js';
import type { CallUsage } from '../billing/usage.js';
import { audioBytesPerToken, type MeteredEvent, type UnitKind } from './realtime-meter.js';

/** What a realtime session bills against, fixed when it opens. */
export interface RealtimeBilling {
  auth: TokenAuth;
  group: string;
  model: string;
  upstreamModel: string;
  ip: string;
  channel: CachedChannel;
  usedChannels: number[];
  price: ResolvedPrice;
  target: ReserveTarget;
  /** Reserved ahead of each response: a response is only started with this much held. */
  perResponse: number;
  hold: Hold;
  /** The journal's call for the response `hold` is reserved for (openRealtimeResponse). */
  callId: string;
  /** A session without a frame either way for this long is closed (REALTIME_IDLE_TIMEOUT). */
  idleMs: number;
}

/**
 * Opens a unit of a session (a response, a transcription) in the writer's journal, billed at its reservation if
 * it never settles; resolves with its id (the request id of its log row) once the line is written.
 */
export async function openRealtimeResponse(
  ctx: RelayContext,
  b: Pick<RealtimeBilling, 'auth' | 'group' | 'model' | 'ip' | 'target' | 'perResponse'>,
): Promise<string> {
  const requestId = newRequestId();
  await journalCall(ctx, {
    requestId,
    auth: b.auth,
    group: b.group,
    model: b.model,
    stream: true,
    ip: b.ip,
    started: Date.now(),
    target: b.target,
    reserved: b.perResponse,
  });
  return requestId;
}

/**
 * Open units (responses and input transcriptions) a session may have at once: each holds part of the balance
 * and a journal line, and their ids come from the upstream. A session past it is ended.
 */
export const MAX_OPEN_UNITS = 64;

/**
 * Why a frame cannot be held for: the user's or the token's balance is short, too many units are open, or a period
 * limit of the token or user is reached (its 429, naming the limit and its reset).
 */
export type Refusal = 'user' | 'token' | 'units' | RelayError;

/** Whether a reservation's answer is a refusal rather than a hold. */
const isRefusal = <T extends object>(h: T | Refusal): h is Refusal => typeof h === 'string' || h instanceof RelayError;

/** The hold each unit is started with and extended by: its per-call price, or PreConsumedQuota for ratios. */
export function holdStep(ctx: RelayContext, price: ResolvedPrice): number {
  if (price.price.mode === 'price')
    return computeQuota(price.price, { promptTokens: 0, completionTokens: 0 }, ctx.options.num('QuotaPerUnit'));
  return price.price.mode === 'expr' || price.price.modelRatio > 0 ? ctx.options.num('PreConsumedQuota') : 0;
}

interface Unit {
  kind: UnitKind;
  model: string;
  price: ResolvedPrice;
  /** The holds taken for it, first the one its journal line was opened with. */
  holds: Hold[];
  held: number;
  callId: string;
  /** Output tokens delivered (audio fractional). */
  tokens: number;
  started: number;
  firstByteMs: number;
}

/** A reservation taken ahead for the next response, with its journal line. */
interface Spare {
  hold: Hold;
  callId: string;
}

/**
 * The money of one realtime session. Every unit (a response, an input transcription) is held for before its
 * first frame reaches the client and its hold grows ahead of what it delivers: `admit` takes what the next
 * frame needs (false: the balance cannot hold it, and the frame must not be delivered), `deliver` counts it.
 * A unit ends with the larger of its reported usage and what it delivered; a session cut mid-unit bills what
 * was delivered. Calls are serialised by the session (one frame at a time).
 */
export class RealtimeAccount {
  private readonly units = new Map<string, Unit>();
  private spare: Spare | undefined;
  private bytesPerToken = audioBytesPerToken(undefined);
  private transcriptionModel: string | undefined;
  private readonly perUnit: number;

  constructor(
    private readonly ctx: RelayContext,
    private readonly b: RealtimeBilling,
  ) {
    this.spare = { hold: b.hold, callId: b.callId };
    this.perUnit = ctx.options.num('QuotaPerUnit');
  }

  /** Quota of a usage at a price. */
  private quota(price: ResolvedPrice, usage: CallUsage): number {
    return computeQuota(scaledPrice(price.price, usage.units), usage, this.perUnit, 'openai');
  }

  /** The usage a unit has delivered so far (its output tokens, rounded up). */
  private meteredUsage(u: Unit): CallUsage {
    return { promptTokens: 0, completionTokens: Math.ceil(u.tokens - 1e-9), reported: false };
  }

  /** The usage a unit is billed at: the upstream's, with the output at least what was delivered. */
  private finalUsage(u: Unit, reported: CallUsage | undefined): CallUsage {
    const metered = this.meteredUsage(u);
    if (!reported) return metered;
    return { ...reported, completionTokens: Math.max(reported.completionTokens, metered.completionTokens) };
  }

  private tokensOf(ev: Extract<MeteredEvent, { kind: 'delta' }>): number {
    return ev.textTokens + ev.audioBytes / this.bytesPerToken;
  }

  /** A hold of up to `amount` (at least `minimum`), or why there is none. */
  private async reserve(amount: number, minimum = amount): Promise<Hold | Refusal> {
    try {
      return await this.ctx.relay.ledger.reserve(this.b.target, amount, minimum);
    } catch (err) {
      if (err instanceof RelayError && err.code === PERIOD_LIMIT_CODE) return err;
      throw err;
    }
  }

  /** Takes at least `amount` more for a unit (a hold step when the balance has it); the refusal when it cannot. */
  private async extend(u: Unit, amount: number): Promise<true | Refusal> {
    const hold = await this.reserve(Math.max(holdStep(this.ctx, u.price), amount), amount);
    if (isRefusal(hold)) return hold;
    u.holds.push(hold);
    u.held += hold.amount;
    return true;
  }

  /** Opens a unit: a response takes the spare reservation when there is one; the refusal when nothing can be held. */
  private async open(key: string, kind: UnitKind): Promise<Unit | Refusal> {
    if (this.units.size >= MAX_OPEN_UNITS) return 'units';
    const model = kind === 'transcription' && this.transcriptionModel ? this.transcriptionModel : this.b.model;
    const price =
      (model !== this.b.model && resolvePrice(this.ctx.options, model, this.b.group, false)) || this.b.price;
    const started = Date.now();
    const unit: Unit = { kind, model, price, holds: [], held: 0, callId: '', tokens: 0, started, firstByteMs: 0 };
    if (kind === 'response' && this.spare) {
      unit.holds.push(this.spare.hold);
      unit.held = this.spare.hold.amount;
      unit.callId = this.spare.callId;
      this.spare = undefined;
    } else {
      const amount = holdStep(this.ctx, price);
      const hold = await this.reserve(amount);
      if (isRefusal(hold)) return hold;
      unit.holds.push(hold);
      unit.held = hold.amount;
      unit.callId = await openRealtimeResponse(this.ctx, { ...this.b, model, perResponse: amount });
    }
    this.units.set(key, unit);
    return unit;
  }

  /** What the unit's bill would be with `ev` delivered, beyond what the unit already holds (0: nothing to take). */
  private shortOf(u: Unit, ev: Extract<MeteredEvent, { kind: 'delta' | 'done' }>): number {
    const usage =
      ev.kind === 'delta'
        ? { ...this.meteredUsage(u), completionTokens: Math.ceil(u.tokens + this.tokensOf(ev) - 1e-9) }
        : this.finalUsage(u, ev.usage);
    return Math.max(0, this.quota(u.price, usage) - u.held);
  }

  /**
   * Holds what delivering `ev` needs. Synchronous (undefined) when the unit already holds enough, else a promise:
   * true when it now does, else why it cannot (the user's or the token's balance, or too many open units).
   */
  admit(ev: MeteredEvent): Promise<true | Refusal> | undefined {
    if (ev.kind === 'session') {
      this.bytesPerToken = audioBytesPerToken(ev.outputFormat);
      this.transcriptionModel = ev.transcriptionModel ?? this.transcriptionModel;
      return undefined;
    }
    if (ev.kind === 'created')
      return this.units.has(ev.unit)
        ? undefined
        : this.open(ev.unit, 'response').then((u) => (isRefusal(u) ? u : true));
    const known = this.units.get(ev.unit);
    // The end of a unit never seen, without usage, is worth nothing more.
    if (!known && ev.kind === 'done' && ev.usage === undefined) return undefined;
    if (known && this.shortOf(known, ev) === 0) return undefined;
    return (async () => {
      const u = known ?? (await this.open(ev.unit, ev.unitKind));
      if (isRefusal(u)) return u;
      const short = this.shortOf(u, ev);
      return short === 0 || this.extend(u, short);
    })();
  }

  /** Counts a frame passed on to the client (after `admit`). */
  deliver(ev: MeteredEvent): void {
    if (ev.kind !== 'delta') return;
    const u = this.units.get(ev.unit);
    if (!u) return;
    if (!u.firstByteMs) u.firstByteMs = Date.now() - u.started;
    u.tokens += this.tokensOf(ev);
  }

  /** Ends a unit: billed at its final usage (or what it delivered); its holds released. Returns the charge. */
  async finish(key: string, reported: CallUsage | undefined): Promise<number> {
    const u = this.units.get(key);
    if (!u) return 0;
    this.units.delete(key);
    const usage = this.finalUsage(u, reported);
    // One settle gives back all the unit held and takes its charge, so no concurrent call can take the difference.
    const { hold: main, others } = combineHolds(u.holds);
    for (const h of others) await this.ctx.relay.ledger.settle(this.b.target, h, 0);
    if (!reported && usage.completionTokens === 0) {
      await refundHold(this.ctx, this.b.target, main, u.callId);
      return 0;
    }
    const quota = this.quota(u.price, usage);
    const charged = await settleCall(this.ctx, {
      requestId: u.callId,
      callId: u.callId,
      auth: this.b.auth,
      group: this.b.group,
      model: u.model,
      upstreamModel: u.kind === 'response' ? this.b.upstreamModel : u.model,
      stream: true,
      ip: this.b.ip,
      started: u.started,
      firstByteMs: u.firstByteMs,
      channel: this.b.channel,
      usedChannels: this.b.usedChannels,
      price: u.price,
      usage,
      target: this.b.target,
      hold: main,
    });
    observeRealtimeCharge(charged);
    if (charged < quota)
      recordShortfall(this.ctx.log, 'realtime', { requestId: u.callId, userId: this.b.auth.userId, quota, charged });
    return charged;
  }

  /** Whether a response will need a reservation of its own (none is held ahead). */
  needsSpare(): boolean {
    return this.spare === undefined;
  }

  /** Reserves ahead for the next response: at least `atLeast` (the last response's charge); the refusal when it cannot. */
  async reserveSpare(atLeast: number): Promise<true | Refusal> {
    if (this.spare) return true;
    const amount = Math.max(this.b.perResponse, atLeast);
    const hold = await this.reserve(amount);
    if (isRefusal(hold)) return hold;
    this.spare = { hold, callId: await openRealtimeResponse(this.ctx, { ...this.b, perResponse: amount }) };
    return true;
  }

  /** The session ended: every open unit is billed for what it delivered, the spare reservation released. */
  async close(): Promise<void> {
    for (const key of [...this.units.keys()]) await this.finish(key, undefined);
    if (this.spare) {
      const { hold, callId } = this.spare;
      this.spare = undefined;
      await refundHold(this.ctx, this.b.target, hold, callId);
    }
  }
}
