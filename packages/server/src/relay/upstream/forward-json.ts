import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { CHAT_CONTENT_CAP } from '../pipeline/capped-text.js';
import { openAIAnswerContent } from '../pipeline/chat-content.js';
import type { AnswerHeaders, StreamSink, WholeSink } from './forward-upstream.js';
import { plainPastCap, type OutputBudget } from '../billing/output-hold.js';
import { countAnswerTokens } from '../pipeline/token-count.js';
import type { AttemptResult, CostReceipt, Receipt, RelayedAttempt } from '../pipeline/types.js';
import { usageFromJsonTail, type CallUsage } from '../billing/usage.js';
import { withReceiptHeaders, withUsageCost } from '../billing/receipt.js';

type CountTokens = (text: string) => number;

/** What the OpenAI pass-through's plain answers need to know of their call. */
export interface PlainAnswerCall {
  captureAnswer?: boolean;
  budget?: OutputBudget;
  receipt?: CostReceipt;
  /** A surface's meter: the usage it bills for the usage the upstream reported (images: per image). */
  meter?: (reported: CallUsage | undefined) => CallUsage;
  /** A receipt known before the answer (speech), put in the head of an answer passed on as it comes. */
  receiptHeaders?: Record<string, string>;
}

const TAIL = 16 * 1024;
/**
 * Most of a plain answer held back until it is whole (its usage read, its cost receipt in its head) and kept to
 * count when it carries no usage. Past it the answer is passed on as it arrives, without a receipt, and a byte
 * counts as a token when it must be counted.
 */
const HELD_ANSWER_LIMIT = 16 * 1024 * 1024;
/** Most of a clamped plain answer read whole before it is delivered. */
const METERED_ANSWER_LIMIT = 64 * 1024 * 1024;
/** How much of a plain answer is kept to read its text from (JSON escapes and other fields take room too). */
const CAPTURE_HEAD = 64 * CHAT_CONTENT_CAP;

/** Our count of a plain answer's text; an answer that is not JSON counts a token per byte (never less than it can hold). */
function countedAnswer(text: string, countTokens: CountTokens): number {
  try {
    return countAnswerTokens(JSON.parse(text), countTokens);
  } catch {
    return Buffer.byteLength(text);
  }
}

/** Delivers a whole plain answer with its receipt: headers, and the cost in its usage when the client asked. */
function sendWithReceipt(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string,
  receipt: CostReceipt | undefined,
  result: RelayedAttempt,
  bytes?: Buffer,
): void {
  let r: Receipt | undefined;
  if (receipt) {
    r = receipt.issue(result);
    result.receipted = true;
  }
  // The upstream's bytes as they came, unless the cost goes into the usage.
  const body = r && receipt!.inUsage ? withUsageCost(text, r) : (bytes ?? text);
  res.writeHead(
    status,
    withReceiptHeaders(
      { 'content-type': contentType, 'cache-control': 'no-cache', 'content-length': Buffer.byteLength(body) },
      r,
    ),
  );
  res.end(body);
}

/**
 * A plain answer from an OpenAI-format upstream, held until it is whole (bounded by HELD_ANSWER_LIMIT): its usage
 * is read from its tail and its cost receipt goes out with it. An answer larger than that, or with no receipt to
 * give, is passed on as it arrives, its usage read from a bounded tail.
 */
export class PassThroughJson implements StreamSink {
  readonly whole = false;
  readonly keepAlive = undefined;
  private res: ServerResponse | undefined;
  private status = 200;
  private contentType = 'application/json';
  private length: string | undefined;
  private firstByteMs = 0;
  private bytes = 0;
  /** The answer's chunks while it is held (undefined once it is passed on). */
  private held: Buffer[] | undefined = [];
  /** Passed on from its start: its chunks kept to count should it carry no usage (undefined past the limit). */
  private kept: Buffer[] | undefined;
  // Passed on (past the hold): the decoded tail for the usage, and the start kept for the log when capturing.
  private readonly decoder = new StringDecoder('utf8');
  private tail = '';
  private head: string | undefined;
  private headComplete = true;

  constructor(
    private readonly up: PlainAnswerCall,
    private readonly started: number,
    private readonly countTokens: CountTokens,
  ) {}

  open(res: ServerResponse, status: number, headers: AnswerHeaders): void {
    // Nothing is written before the answer is whole (or too large to hold).
    this.res = res;
    this.status = status;
    this.contentType = String(headers['content-type'] ?? 'application/json');
    this.length = headers['content-length'] as string | undefined;
    // No receipt to give (a surface's pass-through, which bills on its own meter): passed on as it arrives.
    if (!this.up.receipt) this.passOn(undefined);
  }

  chunk(raw: Buffer): Buffer | undefined {
    if (!this.firstByteMs) this.firstByteMs = Date.now() - this.started;
    this.bytes += raw.length;
    const held = this.held;
    if (held) {
      held.push(raw);
      if (this.bytes <= HELD_ANSWER_LIMIT) return undefined;
      return this.passOn(Buffer.concat(held));
    }
    if (this.kept && this.bytes <= HELD_ANSWER_LIMIT) this.kept.push(raw);
    else this.kept = undefined;
    this.take(this.decoder.write(raw));
    return raw;
  }

  /** Past the hold (or nothing to hold for): the head written without a receipt, and what was held handed on. */
  private passOn(all: Buffer | undefined): Buffer | undefined {
    this.held = undefined;
    const head = { 'content-type': this.contentType, 'cache-control': 'no-cache', ...this.up.receiptHeaders };
    this.res!.writeHead(this.status, this.length ? { ...head, 'content-length': this.length } : head);
    if (this.up.captureAnswer) this.head = '';
    if (all) this.take(this.decoder.write(all));
    else this.kept = [];
    return all;
  }

  private take(text: string): void {
    this.tail = (this.tail + text).slice(-TAIL);
    const head = this.head;
    if (head !== undefined && this.headComplete) {
      if (head.length + text.length <= CAPTURE_HEAD) this.head = head + text;
      else {
        this.head = head + text.slice(0, CAPTURE_HEAD - head.length);
        this.headComplete = false;
      }
    }
  }

  close(res: ServerResponse, cut: boolean): AttemptResult {
    const held = this.held;
    if (!held) {
      if (!res.destroyed) res.end();
      const usage = usageFromJsonTail(this.tail);
      // No usage (or no output in it): billed on our count of every choice's text (too large to keep: a token a byte).
      const kept = this.kept;
      const counted = usage?.completionTokens
        ? 0
        : kept
          ? countedAnswer(Buffer.concat(kept).toString('utf8'), this.countTokens)
          : this.bytes;
      return this.result(usage, counted, cut, this.head, this.headComplete);
    }
    // Nothing reached the client yet: an answer the upstream broke off is a failed attempt (another channel may
    // serve). A client that left is billed as before its answer was held: a cut answer, on what the upstream sent.
    const clientLeft = cut && res.destroyed;
    if (cut && !clientLeft)
      return { kind: 'failed', status: 0, message: 'upstream unreachable: the answer broke off', body: '' };
    const bytes = held.length === 1 ? held[0]! : Buffer.concat(held);
    const text = bytes.toString('utf8');
    const usage = usageFromJsonTail(text.slice(-TAIL));
    const capture = this.up.captureAnswer ? text : undefined;
    const meter = this.up.meter;
    // No usage (or no output in it): billed on our count of every choice's text, unless the surface meters it.
    const result = meter
      ? this.result(meter(usage), 0, false, capture, true)
      : this.result(usage, usage?.completionTokens ? 0 : countedAnswer(text, this.countTokens), cut, capture, !cut);
    if (!res.destroyed) sendWithReceipt(res, this.status, this.contentType, text, this.up.receipt, result, bytes);
    return result;
  }

  private result(
    usage: RelayedAttempt['usage'],
    counted: number,
    cut: boolean,
    head: string | undefined,
    complete: boolean,
  ): RelayedAttempt {
    return {
      kind: 'relayed',
      status: this.status,
      usage,
      countedCompletion: counted,
      firstByteMs: this.firstByteMs,
      cut,
      output: head !== undefined ? openAIAnswerContent(head, complete) : undefined,
    };
  }
}

/**
 * A plain answer to a call whose output cap was clamped to the balance: read whole and delivered only when its
 * output (reported, else counted) is within what the hold pays for; past it (the upstream ignored the cap) the
 * attempt fails and nothing is delivered or charged.
 */
export class MeteredJson implements WholeSink {
  readonly whole = true;
  readonly limit = METERED_ANSWER_LIMIT;

  constructor(
    private readonly up: PlainAnswerCall,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {}

  answer(res: ServerResponse, text: string, headers: AnswerHeaders): AttemptResult {
    const usage = usageFromJsonTail(text.slice(-TAIL));
    const counted = usage?.completionTokens ? 0 : countedAnswer(text, this.countTokens);
    if (Math.max(usage?.completionTokens ?? 0, counted) > (this.up.budget?.tokens ?? Infinity)) {
      return plainPastCap();
    }
    const result: RelayedAttempt = {
      kind: 'relayed',
      status: 200,
      usage,
      countedCompletion: counted,
      firstByteMs: Date.now() - this.started,
      cut: false,
      output: this.up.captureAnswer ? openAIAnswerContent(text, true) : undefined,
    };
    sendWithReceipt(res, 200, String(headers['content-type'] ?? 'application/json'), text, this.up.receipt, result);
    return result;
  }
}
