// `npm run bench` rows for channel affinity, in process: what a relay call pays for the default rules when it names
// no session (the common case: each rule's model and path patterns, a body field looked up), and when it names one
// (the value hashed, the pin read and checked, the pin written back after the answer). Medians of alternating
// rounds. `node --import tsx bench/affinity.ts` runs it alone.
import { pathToFileURL } from 'node:url';
import { ChannelAffinity } from '../packages/server/src/core/routing/affinity.js';
import { toCachedChannel } from '../packages/server/src/core/routing/channel-cache.js';
import type { ChannelRow } from '../packages/server/src/core/routing/channel-row.js';
import { OptionsService } from '../packages/server/src/core/options/service.js';
import type { OptionsStore } from '../packages/server/src/core/options/store.js';
import type { SecretBox } from '../packages/server/src/lib/secret-box.js';

const CALLS = 200_000;
const ROUNDS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function affinityUnderTest(): ChannelAffinity {
  const store = { all: async () => [], upsert: async () => undefined } as unknown as OptionsStore;
  const box = { seal: (v: string) => v, open: (v: string) => v } as unknown as SecretBox;
  const channel = toCachedChannel({
    id: 1,
    type: 1,
    key: 'k',
    status: 1,
    name: 'c',
    weight: 0,
    base_url: 'http://127.0.0.1:1',
    models: 'gpt-4o-mini',
    group: 'default',
    priority: 0,
    channel_info: '',
  } as unknown as ChannelRow);
  return new ChannelAffinity(
    new OptionsService(store, box),
    { get: (id) => (id === 1 ? channel : undefined) },
    { blocked: () => false, keyBlocked: () => false },
  );
}

const caller = { tokenId: 1, userId: 1, tokenName: 't', tokenGroup: '', username: 'u', userGroup: 'default' };
const headers = { 'content-type': 'application/json', 'user-agent': 'bench' };
const plain = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello.' }] };
const tried: ReadonlySet<number> = new Set();

/** Nanoseconds per call: no session named, and a session named (match, pin read and checked, pin written). */
export async function affinityCostsNs(): Promise<{ none: number; session: number }> {
  const affinity = affinityUnderTest();
  const withKey = { ...plain, prompt_cache_key: 'bench-session' };
  const pin = { channelId: 1, keyIndex: 0, model: 'gpt-4o-mini' };
  const none = () => {
    let sink = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++)
      if (affinity.match({ model: plain.model, path: '/v1/chat/completions', headers, body: plain }, caller, 'default'))
        sink++;
    const ns = Number(process.hrtime.bigint() - t0) / CALLS;
    if (sink !== 0) throw new Error('a call without a session matched');
    return ns;
  };
  const session = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      const m = affinity.match(
        { model: plain.model, path: '/v1/chat/completions', headers, body: withKey },
        caller,
        'default',
      )!;
      await affinity.pinned(m, tried, 0);
      affinity.served(m, true, pin);
    }
    return Number(process.hrtime.bigint() - t0) / CALLS;
  };
  none();
  await session();
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(none());
    b.push(await session());
  }
  return { none: median(a), session: median(b) };
}

export async function affinityRows(): Promise<string[]> {
  const c = await affinityCostsNs();
  return [
    `| Channel affinity per chat call, in process (default rules; median of ${ROUNDS} rounds of ${CALLS / 1000}k): no session named / a session named (hash, pin read and checked, pin renewed; memory store) | ${c.none.toFixed(0)} / ${c.session.toFixed(0)} ns | — |`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  for (const row of await affinityRows()) console.log(row);
