// Fetches upstreams' prices through the outbound (SSRF) guard: a timeout, a size limit and a bounded number at once.
import type { Dispatcher } from 'undici';
import { failureKind } from '../../lib/external-call.js';
import { OutboundBlockedError } from '../../lib/outbound-guard.js';
import { BodyTooLarge, getJson, readCapped } from '../../lib/read-capped.js';
import { MAX_ANSWER_BYTES, MAX_CONCURRENT_FETCHES, type TestResult } from './schema.js';
import { parsePriceAnswer, UnreadableAnswer, type UpstreamAnswer } from './parse.js';

/** An upstream to fetch: the name its results are shown under and the whole URL. */
export interface Target {
  name: string;
  url: string;
}

export type Fetched = ({ name: string } & UpstreamAnswer) | { name: string; error: string };

/** What went wrong, for root: the guard's reason, a timeout, a status, or the system's code; never the address. */
function failureText(err: unknown): string {
  if (err instanceof OutboundBlockedError || err instanceof UnreadableAnswer) return err.message;
  if (err instanceof BodyTooLarge) return `the answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB`;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof OutboundBlockedError) return cause.message;
  return failureKind(err);
}

/** One upstream's prices, or why they could not be read. Redirects are not followed. */
async function fetchOne(target: Target, dispatcher: Dispatcher, timeoutMs: number): Promise<Fetched> {
  try {
    const res = await getJson(target.url, dispatcher, 'Tollway-RatioSync', timeoutMs);
    if (res.statusCode !== 200) {
      await res.body.dump();
      return { name: target.name, error: `the upstream answered HTTP ${res.statusCode}` };
    }
    if (Number(res.headers['content-length']) > MAX_ANSWER_BYTES) {
      await res.body.dump();
      throw new BodyTooLarge(MAX_ANSWER_BYTES);
    }
    return { name: target.name, ...parsePriceAnswer(await readCapped(res.body, MAX_ANSWER_BYTES)) };
  } catch (err) {
    return { name: target.name, error: failureText(err) };
  }
}

/** Every target's prices, at most MAX_CONCURRENT_FETCHES at a time, in the targets' order. */
export async function fetchAll(targets: Target[], dispatcher: Dispatcher, timeoutMs: number): Promise<Fetched[]> {
  const out: Fetched[] = new Array<Fetched>(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      out[i] = await fetchOne(targets[i]!, dispatcher, timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_CONCURRENT_FETCHES, targets.length) }, worker));
  return out;
}

/** The test_results entry of a fetch. */
export const resultOf = (f: Fetched): TestResult =>
  'error' in f ? { name: f.name, status: 'error', error: f.error } : { name: f.name, status: 'success' };
