import { Agent, request } from 'undici';

/** The header a relay answer names its call by (the consume log row's request_id). */
export const REQUEST_ID_HEADER = 'x-oneapi-request-id';

/** The mock upstream's answer text (its default pieces joined). */
const MOCK_ANSWER = 'Hello from the mock!';
const STREAM_END = 'data: [DONE]';
/** max_tokens of the two kinds of call: the reservation differs, the charge (usage) does not. */
export const PLAIN_MAX_TOKENS = 40;
export const STREAM_MAX_TOKENS = 80;
/** Every this many calls a worker makes one with the unlimited token (the rest use the limited one). */
const UNLIMITED_EVERY = 4;
/** A load never sends more calls than this, whatever happens to the server. */
const MAX_CALLS = 50_000;
const CALL_TIMEOUT_MS = 15_000;

export type TokenKind = 'limited' | 'unlimited';

/** One call as the client saw it. */
export interface CallOutcome {
  /** The request id header, when the answer's headers arrived. */
  id: string | undefined;
  token: TokenKind;
  stream: boolean;
  maxTokens: number;
  /** Size of the request body in bytes (the reservation's prompt estimate grows with it). */
  bytes: number;
  /** delivered: 200 and the whole answer; cut: no complete answer (the server died); error: a complete non-200. */
  kind: 'delivered' | 'cut' | 'error';
  status?: number;
  /** When the call was sent (performance.now(), ms). */
  startedAt: number;
}

export interface LoadOptions {
  base: string;
  model: string;
  keys: Record<TokenKind, string>;
  workers: number;
}

/** Concurrent chat calls over loopback until halted; every call's outcome is kept. */
export class ChatLoad {
  readonly outcomes: CallOutcome[] = [];
  private halted = false;
  private sent = 0;
  private readonly agent = new Agent({ connections: null });
  private readonly running: Promise<void>[];
  private ending: Promise<CallOutcome[]> | undefined;

  constructor(private readonly opts: LoadOptions) {
    this.running = Array.from({ length: opts.workers }, (_, w) => this.worker(w));
  }

  delivered(): number {
    return this.outcomes.filter((o) => o.kind === 'delivered').length;
  }

  /** Resolves once `n` calls of this load were delivered (or the load ended). */
  async untilDelivered(n: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.delivered() < n && !this.halted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    if (this.delivered() < n)
      throw new Error(
        `load delivered ${this.delivered()} of ${n} calls in ${timeoutMs} ms: ${JSON.stringify(this.statuses())}`,
      );
  }

  /** No new call starts after this; the calls in flight end on their own (or as the server dies). */
  halt(): void {
    this.halted = true;
  }

  /** Halts and waits for the calls in flight to end; the same promise on every call. */
  finished(): Promise<CallOutcome[]> {
    this.halt();
    this.ending ??= Promise.all(this.running)
      .then(() => this.agent.destroy())
      .then(() => this.outcomes);
    return this.ending;
  }

  /** Count of outcomes by kind and status, for messages. */
  statuses(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const o of this.outcomes) {
      const k = o.kind === 'error' ? `error ${o.status}` : o.kind;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  }

  private async worker(w: number): Promise<void> {
    for (let n = 0; !this.halted && this.sent < MAX_CALLS; n++) {
      this.sent++;
      this.outcomes.push(await this.call(w, n));
    }
  }

  private async call(w: number, n: number): Promise<CallOutcome> {
    const stream = (w + n) % 2 === 0;
    const token: TokenKind = n % UNLIMITED_EVERY === UNLIMITED_EVERY - 1 ? 'unlimited' : 'limited';
    const maxTokens = stream ? STREAM_MAX_TOKENS : PLAIN_MAX_TOKENS;
    const body = JSON.stringify({
      model: this.opts.model,
      messages: [{ role: 'user', content: `crash test worker ${w} call ${n}` }],
      max_tokens: maxTokens,
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
    const outcome: CallOutcome = {
      id: undefined,
      token,
      stream,
      maxTokens,
      bytes: Buffer.byteLength(body),
      kind: 'cut',
      startedAt: performance.now(),
    };
    try {
      const res = await request(`${this.opts.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${this.opts.keys[token]}`, 'content-type': 'application/json' },
        body,
        dispatcher: this.agent,
        headersTimeout: CALL_TIMEOUT_MS,
        bodyTimeout: CALL_TIMEOUT_MS,
      });
      const id = res.headers[REQUEST_ID_HEADER];
      outcome.id = typeof id === 'string' && id ? id : undefined;
      outcome.status = res.statusCode;
      // A body cut by the server's death rejects here; the call stays 'cut'.
      const text = await res.body.text();
      if (res.statusCode !== 200) outcome.kind = 'error';
      else if (complete(text, stream)) outcome.kind = 'delivered';
    } catch {
      // Refused, reset or cut: not delivered.
    }
    return outcome;
  }
}

/** The whole answer: a chat completion with the mock's text, or a stream ending in [DONE]. */
function complete(text: string, stream: boolean): boolean {
  if (stream) return text.trimEnd().endsWith(STREAM_END) && text.includes('"content":"!"');
  try {
    const j = JSON.parse(text) as { choices?: { message?: { content?: string } }[] };
    return j.choices?.[0]?.message?.content === MOCK_ANSWER;
  } catch {
    return false;
  }
}
