// `npm run bench` rows for the response cache (docs/operating/response-cache.md): the cost of a lookup in process
// (cache off, no rule for the call, a miss), the added p50 of calls the cache applies to that all miss (each a new
// request, its answer stored after it is sent) over the same calls with the cache off, and the throughput of hits
// against the same relay without the cache. `node --import tsx bench/response-cache.ts` runs it alone.
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import type { OptionKey } from '../packages/shared/src/index.js';
import { optionDefs } from '../packages/shared/src/options.js';
import type { OptionsService } from '../packages/server/src/core/options/service.js';
import { LocalBus } from '../packages/server/src/lib/cluster-bus.js';
import { ResponseCache } from '../packages/server/src/relay/cache/response-cache.js';
import type { AnswerStore } from '../packages/server/src/relay/cache/store.js';
import type { TokenAuth } from '../packages/server/src/relay/entry/auth-cache.js';
import type { InboundCall } from '../packages/server/src/relay/pipeline/types.js';
import { openAIChat } from '../packages/server/src/relay/providers/openai/chat.js';
import { sequentialLatency, throughput, type Target } from './measure.js';
import type { Proc } from './procs.js';
import { BENCH_ROOT_PASSWORD, chatBody, startMock, startTollway } from './targets.js';

const MODEL = 'gpt-4o-mini';
const ROUNDS = 7;
const CALLS = 300;
const LOOKUPS = 20_000;
const HIT_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const HIT_CONNECTIONS = 64;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Options as the cache reads them: the defaults with `set` over them (no database). */
function optionsOf(set: Partial<Record<OptionKey, string>>): OptionsService {
  const text = (k: OptionKey) => set[k] ?? optionDefs[k].default;
  return {
    get: text,
    bool: (k: OptionKey) => text(k) === 'true',
    num: (k: OptionKey) => Number(text(k)),
    json: (k: OptionKey) => JSON.parse(text(k)) as unknown,
    onChange: () => undefined,
  } as unknown as OptionsService;
}

/** A store that holds nothing: every lookup the index lets through would read it (none do on a miss). */
const EMPTY_STORE: AnswerStore = {
  get: () => Promise.resolve(undefined),
  put: () => Promise.resolve([]),
  delete: () => Promise.resolve(),
  keys: () => Promise.resolve([]),
};

const auth = { tokenId: 7, userId: 3 } as TokenAuth;
const callOf = (i: number): InboundCall => {
  const body = {
    model: MODEL,
    temperature: 0,
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: `Say hello, number ${i}.` },
    ],
  };
  return { format: openAIChat, body, model: MODEL, stream: false, includeUsage: false, maxTokens: 0, bytes: 160 };
};

/** Nanoseconds per lookup in process: cache off, on without a rule for the call, and a miss (key + index check). */
export async function lookupCostsNs(): Promise<{ off: number; noRule: number; miss: number }> {
  const log = pino({ level: 'silent' });
  const calls = Array.from({ length: LOOKUPS }, (_, i) => callOf(i));
  const off = new ResponseCache(optionsOf({}), EMPTY_STORE, new LocalBus(), log);
  const other = new ResponseCache(
    optionsOf({ 'response_cache.enabled': 'true', 'response_cache.models': '["another-model"]' }),
    EMPTY_STORE,
    new LocalBus(),
    log,
  );
  const on = new ResponseCache(
    optionsOf({ 'response_cache.enabled': 'true', 'response_cache.models': JSON.stringify([MODEL]) }),
    EMPTY_STORE,
    new LocalBus(),
    log,
  );
  await on.start();
  const syncRound = (cache: ResponseCache) => {
    const t0 = process.hrtime.bigint();
    let n = 0;
    for (const c of calls) if (cache.match(auth, 'default', c)) n++;
    const ns = Number(process.hrtime.bigint() - t0) / calls.length;
    if (n < 0) throw new Error('unreachable');
    return ns;
  };
  const missRound = () => {
    const t0 = process.hrtime.bigint();
    for (const c of calls) {
      // A miss the index decides is answered synchronously (answerFromCache awaits only a promise).
      if (on.find(on.match(auth, 'default', c)!) !== undefined) throw new Error('a miss was a hit');
    }
    return Number(process.hrtime.bigint() - t0) / calls.length;
  };
  syncRound(off);
  syncRound(other);
  missRound();
  const offs: number[] = [];
  const noRules: number[] = [];
  const misses: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    offs.push(syncRound(off));
    noRules.push(syncRound(other));
    misses.push(missRound());
  }
  return { off: median(offs), noRule: median(noRules), miss: median(misses) };
}

/** Signs in as the bench's root and returns a setter of options. */
async function optionSetter(base: string) {
  const login = await fetch(`${base}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: BENCH_ROOT_PASSWORD }),
  });
  const headers = {
    'content-type': 'application/json',
    cookie: login.headers.get('set-cookie')!.split(';')[0]!,
    'new-api-user': '1',
  };
  return async (key: OptionKey, value: string) => {
    const res = await fetch(`${base}/api/option/`, { method: 'PUT', headers, body: JSON.stringify({ key, value }) });
    const j = (await res.json()) as { success: boolean; message: string };
    if (!j.success) throw new Error(`${key}: ${j.message}`);
  };
}

let unique = 0;
/** p50 (ms) of `n` sequential calls over one connection, each a request never sent before (a miss when cached). */
const uniqueCallsP50 = async (t: Target, n: number): Promise<number> =>
  (
    await sequentialLatency(
      t,
      () => JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `Say hello ${++unique}.` }] }),
      n,
      false,
    )
  ).p50;

/** The table rows; the Tollway it starts joins `procs` (stopped by the caller). */
export async function responseCacheRows(mockUrl: string, procs: Proc[]): Promise<string[]> {
  const costs = await lookupCostsNs();
  const tw = await startTollway(mockUrl);
  procs.push(tw.proc);
  const set = await optionSetter(tw.target.url);
  await set('response_cache.models', JSON.stringify([MODEL]));
  const added: number[] = [];
  const offP50: number[] = [];
  const onP50: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await set('response_cache.enabled', 'false');
    const off = await uniqueCallsP50(tw.target, CALLS);
    await set('response_cache.enabled', 'true');
    const on = await uniqueCallsP50(tw.target, CALLS);
    offP50.push(off);
    onP50.push(on);
    added.push(on - off);
  }
  await set('response_cache.enabled', 'false');
  const uncached = await throughput(tw.target, chatBody, HIT_CONNECTIONS, HIT_SECONDS);
  await set('response_cache.enabled', 'true');
  await set('response_cache.max_entries', '100000');
  await throughput(tw.target, chatBody, 1, 1);
  const hits = await throughput(tw.target, chatBody, HIT_CONNECTIONS, HIT_SECONDS);
  const a = median(added);
  return [
    `| Response cache lookup in process: cache off / on without a rule for the call / a miss (canonical key + index check), ns per call (median of ${ROUNDS} rounds of ${LOOKUPS / 1000}k) | ${costs.off.toFixed(0)} / ${costs.noRule.toFixed(0)} / ${costs.miss.toFixed(0)} ns | ≤ 20,000 ns on a miss |`,
    `| p50 latency of calls the response cache applies to, all misses (stored after they are answered), over the cache off, 1 connection (median over ${ROUNDS} alternating rounds; p50s ${median(onP50).toFixed(3)} vs ${median(offP50).toFixed(3)} ms) | ${a >= 0 ? '+' : '−'}${Math.abs(a).toFixed(3)} ms | — |`,
    `| Throughput of response cache hits, ${HIT_CONNECTIONS} connections (no upstream call; the same relay without the cache: ${uncached.rps.toFixed(0)} req/s) | ${hits.rps.toFixed(0)} req/s (p99 ${hits.p99} ms, non-2xx ${hits.non2xx}) | — |`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const procs: Proc[] = [];
  try {
    const mock = await startMock();
    procs.push(mock.proc);
    for (const row of await responseCacheRows(mock.url, procs)) console.log(row);
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}
