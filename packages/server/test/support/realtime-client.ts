import { computeQuota, type Price } from '@tollway/shared';
import { countTokens } from 'gpt-tokenizer';
import { WebSocket } from 'ws';

export type RealtimeEvent = { type: string; [k: string]: unknown };

/** Bytes of PCM16 audio OpenAI bills as one output token (24 kHz mono at 20 tokens a second). */
export const PCM16_BYTES_PER_TOKEN = 2400;

/**
 * A realtime client (raw `ws`) that keeps every event; `next` waits for an event of a type, `until` for any
 * condition on the events so far, `closed` for the close code.
 */
export function realtimeClient(url: string, key: string) {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } });
  const events: RealtimeEvent[] = [];
  const waiting = new Set<() => void>();
  ws.on('message', (data) => {
    events.push(JSON.parse(data.toString()) as RealtimeEvent);
    for (const w of waiting) w();
  });
  let closeCode: number | undefined;
  const closed = new Promise<number>((resolve) =>
    ws.on('close', (code) => {
      closeCode = code;
      resolve(code);
      for (const w of waiting) w();
    }),
  );
  ws.on('error', () => undefined);
  /** Resolves once `check` holds for the events so far (or false once the socket closed without it). */
  const until = async (check: (events: RealtimeEvent[]) => boolean): Promise<boolean> => {
    for (;;) {
      if (check(events)) return true;
      if (closeCode !== undefined) return false;
      await new Promise<void>((resolve) => {
        const w = () => {
          waiting.delete(w);
          resolve();
        };
        waiting.add(w);
      });
    }
  };
  const count = (type: string) => events.filter((e) => e.type === type).length;
  const send = (event: Record<string, unknown>) => ws.send(JSON.stringify(event));
  return { ws, events, until, count, send, closed };
}

type Usage = { input_tokens?: number; output_tokens?: number };

/**
 * What a client received of a realtime session, priced at `price` as output tokens: base64 audio deltas at
 * PCM16_BYTES_PER_TOKEN, text and transcript deltas by their o200k tokens, summed per response (each response
 * rounded up, as a response's tokens are) and per transcription (at `transcriptionPrice`). A response whose
 * response.done (with usage) arrived is worth its input tokens as well, and the larger of its reported and
 * received output.
 */
export function receivedValue(events: RealtimeEvent[], price: Price, transcriptionPrice: Price = price): number {
  const units = new Map<string, { price: Price; tokens: number; input: number; reported: number }>();
  const add = (key: string, p: Price, tokens: number) => {
    const u = units.get(key) ?? { price: p, tokens: 0, input: 0, reported: 0 };
    u.tokens += tokens;
    units.set(key, u);
  };
  for (const e of events) {
    const usage =
      e.type === 'response.done'
        ? ((e.response as { usage?: Usage | null } | undefined)?.usage ?? undefined)
        : undefined;
    if (!usage) continue;
    const key = `r${String((e.response as { id?: string }).id)}`;
    add(key, price, 0);
    units.get(key)!.input = usage.input_tokens ?? 0;
    units.get(key)!.reported = usage.output_tokens ?? 0;
  }
  for (const e of events) {
    const delta = typeof e.delta === 'string' ? e.delta : '';
    if (e.type === 'response.audio.delta' || e.type === 'response.output_audio.delta')
      add(`r${String(e.response_id)}`, price, Buffer.from(delta, 'base64').length / PCM16_BYTES_PER_TOKEN);
    else if (
      /^response\.(output_)?(text|audio_transcript)\.delta$|^response\.function_call_arguments\.delta$/.test(e.type)
    )
      add(`r${String(e.response_id)}`, price, countTokens(delta));
    else if (e.type === 'conversation.item.input_audio_transcription.delta')
      add(`t${String(e.item_id)}`, transcriptionPrice, countTokens(delta));
  }
  let value = 0;
  for (const u of units.values()) {
    const completion = Math.max(u.reported, Math.ceil(u.tokens - 1e-9));
    if (completion > 0 || u.input > 0)
      value += computeQuota(u.price, { promptTokens: u.input, completionTokens: completion }, 500_000);
  }
  return value;
}
