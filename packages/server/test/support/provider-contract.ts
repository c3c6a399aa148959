import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionsService } from '../../src/core/options/service.js';
import type { OptionsStore } from '../../src/core/options/store.js';
import type { CachedChannel } from '../../src/core/routing/channel-cache.js';
import { callSettingsOf } from '../../src/core/routing/channel-settings.js';
import type { SecretBox } from '../../src/lib/secret-box.js';
import { SseCollect } from '../../src/relay/ir/collect.js';
import type { IRResponse, UpstreamFormat } from '../../src/relay/ir/types.js';
import type { ProviderDescriptor } from '../../src/relay/providers/descriptor.js';
import { formatSettings } from '../../src/relay/providers/format-settings.js';
import { formatFor } from '../../src/relay/providers/formats.js';
import { openAIChat } from '../../src/relay/providers/openai/chat.js';
import { openAIPaths } from '../../src/relay/providers/openai/request.js';
import { prepareRequest } from '../../src/relay/providers/prepare.js';
import { adaptorFor, descriptorFor, providers } from '../../src/relay/providers/registry.js';
import type { UpstreamAdaptor, UpstreamCall } from '../../src/relay/providers/types.js';
import { modelErrorMessage } from '../../src/relay/providers/upstream-json.js';
import { startMockUpstream, type MockBehavior } from './mock-upstream.js';

/** What the contract needs of a mock upstream (mock-upstream.ts, mock-bedrock.ts and the like fit). */
export interface ContractUpstream {
  url: string;
  requests: readonly { path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[];
  /** Behaviour by the credential the mock reads (a Bearer key, an access key id, …). */
  behaviors: Map<string, MockBehavior>;
  close(): Promise<void>;
}

/** A provider under the contract: its descriptor, one channel of it, and where its mock upstream must be called. */
export interface ProviderContract {
  /** The descriptor, imported from the provider's folder. */
  descriptor: ProviderDescriptor;
  /** A channel type it serves, with a key (and `other` field) its mock upstream accepts. */
  type: number;
  key: string;
  other?: string;
  /** The upstream model of the chat calls. */
  model: string;
  /** The path the mock must receive a chat call on (a function when it differs for a streamed call). */
  path: string | ((stream: boolean) => string);
  /** Further checks of the request the mock received (credential, body in the vendor's wire). */
  expectRequest?(request: ContractUpstream['requests'][number], stream: boolean): void;
  /** The mock upstream (default: test/support/mock-upstream.ts, which answers every vendor wire it knows). */
  upstream?: () => Promise<ContractUpstream>;
  /**
   * The name the mock keys behaviours by for this channel (default: the key); null when the mock cannot be
   * told to fail for this credential (a signed request: Tencent), whose errors then come as a `refusal`.
   */
  behaviorKey?: string | null;
  /** A key the vendor refuses inside a 200 JSON answer (formats with `answerError`), and the status that means. */
  refusal?: { key: string; status: number };
  /** False for a vendor whose answers carry no usage (billed on Tollway's own count): the usage read back is zero. */
  reportsUsage?: boolean;
  /** A retired API (PaLM): nothing is sent, every call fails with this status and a message matching `message`. */
  retired?: { status: number; message: RegExp };
}

/** The mock's answer to every chat call (test/support/mock-upstream.ts's defaults). */
const MOCK_TEXT = 'Hello from the mock!';
const MOCK_USAGE = { inputTokens: 12, outputTokens: 5 };
/** A status the mock is told to answer with, and its message. */
const FAIL = { status: 429, message: 'slow down (provider contract)' };

/** Options with their defaults and a store that keeps nothing: what the settings of a format read. */
function defaultOptions(): OptionsService {
  const store = { all: async () => [], upsert: async () => undefined } as unknown as OptionsStore;
  const box = { seal: (v: string) => v, open: (v: string) => v } as unknown as SecretBox;
  return new OptionsService(store, box);
}

/** A channel row with only what adaptors read (type, base URL, `other`, organization, call settings). */
const channelOf = (c: ProviderContract, baseUrl: string): CachedChannel =>
  ({
    id: 1,
    type: c.type,
    baseUrl,
    other: c.other ?? '',
    organization: '',
    keys: [c.key],
    callSettings: callSettingsOf({}, false),
  }) as unknown as CachedChannel;

/** A call as sent and answered: the adaptor and format that carried it, and the upstream's answer. */
interface Sent {
  adaptor: UpstreamAdaptor;
  format: UpstreamFormat;
  stream: boolean;
  status: number;
  contentType: string;
  bytes: Buffer;
}

/**
 * One chat call the way the relay's attempt makes it (pipeline/attempt.ts): the adaptor of the type and model,
 * an OpenAI chat request through the IR into the provider's format, the format's settings, the adaptor's
 * prepare step, then the bytes to the mock.
 */
async function chat(
  c: ProviderContract,
  baseUrl: string,
  options: OptionsService,
  key: string,
  stream: boolean,
): Promise<Sent> {
  const adaptor = adaptorFor(c.type, c.model)!;
  const settings = formatSettings(adaptor.format, options, c.model);
  const call: UpstreamCall = {
    channel: channelOf(c, baseUrl),
    key,
    model: settings.model,
    stream,
    openaiPath: openAIPaths.chat,
    options,
  };
  const target = adaptor.target(call);
  const format = formatFor(adaptor.format);
  const ir = openAIChat.requestToIR({
    model: c.model,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ],
    ...(stream ? { stream: true } : {}),
  });
  const body = format.requestFromIR(ir);
  // As the attempt does: an OpenAI upstream reports a stream's usage only when asked.
  if (format.name === 'openai' && stream) body.stream_options = { include_usage: true };
  const tuned = settings.apply(body);
  const sent = await prepareRequest(adaptor, call, target.url, { ...target.headers, ...tuned.headers }, tuned.body);
  if ('error' in sent) throw new Error(`prepare failed: ${sent.error.status} ${sent.error.message}`);
  // An adaptor with a dispatcher of its own (Spark's WebSocket) is called through it, as the relay does.
  const dispatcher = adaptor.dispatcher?.(call);
  if (dispatcher) {
    const res = await dispatcher.request({
      origin: sent.origin,
      path: sent.path,
      method: 'POST',
      headers: sent.headers,
      body: sent.body,
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    return { adaptor, format, stream, status: res.statusCode, contentType: String(res.headers['content-type']), bytes };
  }
  const res = await fetch(sent.origin + sent.path, { method: 'POST', headers: sent.headers, body: sent.body });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { adaptor, format, stream, status: res.status, contentType: res.headers.get('content-type') ?? '', bytes };
}

/** Reads an answer back into the IR as the relay does: JSON whole, a stream (SSE or framed) event by event. */
function readBack({ adaptor, format, stream, contentType, bytes }: Sent): { response?: IRResponse; error?: string } {
  const text = bytes.toString('utf8');
  // As forward-convert.ts's ConvertRoute: an `answerError` format refuses a streamed call with JSON.
  const jsonFault = format.answerError !== undefined && contentType.includes('application/json');
  if (!contentType.includes('text/event-stream') && !(stream && !jsonFault)) {
    const body = JSON.parse(text) as Record<string, unknown>;
    const fault = format.answerError?.(body);
    if (fault) return { error: `${fault.status} ${fault.message}` };
    return { response: format.responseToIR(body) };
  }
  const collect = new SseCollect(format);
  const framer = adaptor.streamFramer?.();
  if (!framer) collect.push(text);
  else
    for (const e of [...framer.push(bytes), ...framer.flush()])
      collect.push(`${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`);
  const { response, error } = collect.end();
  return { response, error };
}

const textOf = (r: IRResponse): string => r.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

/**
 * What every provider must do, as one `describe` block: be registered with its formats, carry a chat call to
 * its upstream in its own wire and back (plain and streamed), and report an upstream's refusal with its status.
 * A provider's test file calls this once with its descriptor and a channel its mock upstream accepts.
 */
export function describeProviderContract(c: ProviderContract): void {
  describe(`provider contract: ${c.descriptor.name}`, () => {
    let upstream: ContractUpstream;
    const options = defaultOptions();
    beforeAll(async () => {
      upstream = await (c.upstream ?? startMockUpstream)();
    });
    afterAll(() => upstream.close());

    it('is registered: the registry serves its types with it, its formats are in the format table', () => {
      expect(providers).toContain(c.descriptor);
      for (const type of c.descriptor.types) expect(descriptorFor(type)).toBe(c.descriptor);
      expect(c.descriptor.types).toContain(c.type);
      for (const [name, format] of Object.entries(c.descriptor.formats)) expect(formatFor(name)).toBe(format);
      expect(Object.keys(c.descriptor.formats)).toContain(adaptorFor(c.type, c.model)?.format);
    });

    const retired = c.retired;
    if (retired)
      it('sends nothing: every call fails with the retirement status and message', async () => {
        for (const stream of [false, true]) {
          const before = upstream.requests.length;
          const failure = await chat(c, upstream.url, options, c.key, stream).then(
            () => undefined,
            (err: Error) => err.message,
          );
          expect(failure).toMatch(new RegExp(`^prepare failed: ${retired.status} `));
          expect(failure).toMatch(retired.message);
          expect(upstream.requests.length).toBe(before);
        }
      });

    for (const stream of retired ? [] : [false, true])
      it(`carries a ${stream ? 'streamed' : 'plain'} chat call to its upstream in its wire and back`, async () => {
        const before = upstream.requests.length;
        const sent = await chat(c, upstream.url, options, c.key, stream);
        expect(sent.status).toBe(200);
        expect(upstream.requests.length).toBe(before + 1);
        const request = upstream.requests.at(-1)!;
        expect(request.path).toBe(typeof c.path === 'string' ? c.path : c.path(stream));
        c.expectRequest?.(request, stream);
        const { response, error } = readBack(sent);
        expect(error).toBeUndefined();
        expect(textOf(response!)).toBe(MOCK_TEXT);
        expect(response!.usage).toMatchObject(
          c.reportsUsage === false ? { inputTokens: 0, outputTokens: 0 } : MOCK_USAGE,
        );
      });

    const behaviorKey = c.behaviorKey === undefined ? c.key : c.behaviorKey;
    if (behaviorKey !== null && !retired)
      it('reports an upstream error with its status and message', async () => {
        upstream.behaviors.set(behaviorKey, { failStatus: FAIL.status, failMessage: FAIL.message });
        try {
          const sent = await chat(c, upstream.url, options, c.key, false);
          expect(sent.status).toBe(FAIL.status);
          expect(modelErrorMessage(sent.bytes.toString('utf8'), sent.contentType)).toBe(FAIL.message);
        } finally {
          upstream.behaviors.delete(behaviorKey);
        }
      });

    const refusal = c.refusal;
    if (refusal)
      it('reads a refusal carried in a 200 answer as a failure with its status', async () => {
        const sent = await chat(c, upstream.url, options, refusal.key, false);
        expect(sent.status).toBe(200);
        expect(readBack(sent).error).toMatch(new RegExp(`^${refusal.status} `));
      });
  });
}
