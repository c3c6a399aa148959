import { beforeEach } from 'vitest';
import type { Client, TestApp } from './app.js';
import { useGateway } from './fixture.js';
import { addChannel } from './gateway.js';
import { startMockVendor, type MockVendor } from './mock-vendor.js';

export type ChannelKind = 'openai' | 'anthropic' | 'gemini';

/** The chat model each channel type serves. */
export const CHANNEL_MODELS = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
} as const;
/** The embedding model of each channel type that has one. */
export const EMBEDDING_MODELS = { openai: 'text-embedding-3-small', gemini: 'gemini-embedding-001' } as const;
/** An Anthropic model without native structured output (the gateway must force a tool). */
export const ANTHROPIC_TOOL_OUTPUT_MODEL = 'claude-3-5-haiku-20241022';
/** A Gemini model whose stream chunks all carry finishReason. */
export const GEMINI_FINISH_EVERY_CHUNK_MODEL = 'gemini-2.0-flash';
/** Per channel, a served model the gateway maps to `mock-error-400`: the upstream answers 400 in its own shape. */
export const ERROR_MODELS = {
  openai: 'openai-bad-request',
  anthropic: 'anthropic-bad-request',
  gemini: 'gemini-bad-request',
} as const;
/** The upstream error the error models are mapped to. */
export const UPSTREAM_ERROR_MODEL = 'mock-error-400';
/** The API key each channel sends upstream (never the caller's). */
export const CHANNEL_KEYS = {
  openai: 'sk-upstream-openai',
  anthropic: 'sk-ant-upstream',
  gemini: 'gemini-upstream-key',
} as const;

/** The user's starting quota: enough for any suite. */
const USER_QUOTA = 1_000_000_000;
const MODEL_RATIO = 0.5;
const COMPLETION_RATIO = 2;

const CHANNELS: { kind: ChannelKind; type: number; models: string[] }[] = [
  { kind: 'openai', type: 1, models: [CHANNEL_MODELS.openai, EMBEDDING_MODELS.openai] },
  { kind: 'anthropic', type: 14, models: [CHANNEL_MODELS.anthropic, ANTHROPIC_TOOL_OUTPUT_MODEL] },
  {
    kind: 'gemini',
    type: 24,
    models: [CHANNEL_MODELS.gemini, GEMINI_FINISH_EVERY_CHUNK_MODEL, EMBEDDING_MODELS.gemini],
  },
];

/** Every model the gateway serves in this fixture (all priced). */
export const SERVED_MODELS = CHANNELS.flatMap((c) => [...c.models, ERROR_MODELS[c.kind]]);

export interface ConformanceFixture {
  /** http://127.0.0.1:<port> of the gateway. */
  base: string;
  /** The funded user's `sk-` token key. */
  key: string;
  vendor: MockVendor;
  t: TestApp;
  root: Client;
}

/**
 * A gateway on SQLite in front of the mock vendor, with an OpenAI (type 1), an Anthropic (14) and a Gemini (24)
 * channel, every model priced and the user funded. Call at describe level; the object is filled in beforeAll.
 * The mock's request list is emptied before each test, so a test sees only the upstream requests it caused.
 */
export function useConformanceGateway(): ConformanceFixture {
  const fx: Partial<ConformanceFixture> = {};
  useGateway('sqlite', { user: 'conformance-user', quota: USER_QUOTA, mock: startMockVendor }, async (gw) => {
    for (const c of CHANNELS) {
      await addChannel(gw.root, {
        name: `${c.kind}-channel`,
        type: c.type,
        key: CHANNEL_KEYS[c.kind],
        baseUrl: gw.mock.url,
        models: [...c.models, ERROR_MODELS[c.kind]].join(','),
        modelMapping: { [ERROR_MODELS[c.kind]]: UPSTREAM_ERROR_MODEL },
      });
    }
    const price = (ratio: number) => JSON.stringify(Object.fromEntries(SERVED_MODELS.map((m) => [m, ratio])));
    for (const [key, ratio] of [
      ['ModelRatio', MODEL_RATIO],
      ['CompletionRatio', COMPLETION_RATIO],
    ] as const) {
      const res = await gw.root.call('PUT', '/api/option/', { key, value: price(ratio) });
      if (!res.body.success) throw new Error(`setting ${key} failed: ${res.body.message}`);
    }
    Object.assign(fx, { base: gw.base, key: gw.key, vendor: gw.mock, t: gw.t, root: gw.root });
  });
  beforeEach(() => {
    fx.vendor?.requests.splice(0);
  });
  return fx as ConformanceFixture;
}
