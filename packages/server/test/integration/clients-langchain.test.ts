import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  type AIMessageChunk,
  type MessageContent,
} from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { compat, compatEach } from '../support/compat.js';
import {
  CHANNEL_MODELS,
  EMBEDDING_MODELS,
  ERROR_MODELS,
  GEMINI_FINISH_EVERY_CHUNK_MODEL,
  UPSTREAM_ERROR_MODEL,
  useConformanceGateway,
  type ChannelKind,
} from '../support/conformance.js';
import {
  langchainEmbeddings,
  langchainModel,
  LANGCHAIN_CHAT_CLIENTS,
  type LangChainChatClient,
} from '../support/langchain-models.js';
import {
  BILLED_PROMPT,
  expectMultiTurnSent,
  HISTORY,
  PNG_BASE64,
  PNG_BYTES,
  SYSTEM,
} from '../support/conformance-fixtures.js';
import { MOCK_EMBEDDING, MOCK_INPUT_TOKENS, MOCK_OUTPUT_TOKENS } from '../support/mock-vendor.js';
import { expectSent, sentModel, sentRoles } from '../support/upstream-view.js';

/**
 * LangChain's ChatOpenAI (chat completions and the Responses API), ChatAnthropic and OpenAIEmbeddings through
 * the gateway to OpenAI, Anthropic and Gemini channels: text, usage_metadata (plain and streamed), system prompts,
 * multi-turn, streams, images, embeddings and errors, checked in what LangChain returns and what the upstream got.
 */

const NOT_SERVED_MODEL = 'no-such-model';
const HTTP_BAD_REQUEST = 400;
const HTTP_NOT_FOUND = 404;
const EMBEDDING_INPUTS = ['first text', 'second text'];
/** A beta feature a user turns on. */
const ANTHROPIC_BETA = 'token-efficient-tools-2025-02-19';
/** Output tokens Anthropic's message_start states before any text. */
const MESSAGE_START_OUTPUT_TOKENS = 1;

const hello = (channel: string) => `Hello from ${channel}`;
const mockUsage = {
  input_tokens: MOCK_INPUT_TOKENS,
  output_tokens: MOCK_OUTPUT_TOKENS,
  total_tokens: MOCK_INPUT_TOKENS + MOCK_OUTPUT_TOKENS,
};

/** An image as each client's users write it: OpenAI's data-URL image_url, Anthropic's base64 image block. */
function imageMessage(client: LangChainChatClient): HumanMessage {
  const image =
    client === '@langchain/anthropic'
      ? { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }
      : { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } };
  return new HumanMessage({ content: [{ type: 'text', text: 'What is in this image?' }, image] as MessageContent });
}

/** The error a call rejects with. */
async function failure(call: Promise<unknown>): Promise<{ status?: number; message?: string }> {
  return call.then(
    () => expect.unreachable('the call succeeded'),
    (err: unknown) => err as { status?: number; message?: string },
  );
}

/** Every chunk of a stream, and their concatenation. */
async function collect(
  model: BaseChatModel,
  input: string,
): Promise<{ chunks: AIMessageChunk[]; whole: AIMessageChunk }> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of await model.stream(input)) chunks.push(chunk);
  return { chunks, whole: chunks.reduce((a, b) => a.concat(b)) };
}

/**
 * ChatAnthropic's streamed usage: input tokens from message_start only, so a stream converted from another vendor
 * must state them there (the upstream's count comes at the end: the gateway's own count, never 0); output tokens
 * as message_start's (Anthropic states 1) plus message_delta's total.
 */
function expectAnthropicStreamUsage(whole: AIMessageChunk, channel: ChannelKind): void {
  const usage = whole.usage_metadata!;
  expect(usage.input_tokens).toBeGreaterThan(0);
  // Anthropic states it; an OpenAI upstream's prompt (billed at the end) is counted as its chat template bills it.
  if (channel !== 'gemini') expect(usage.input_tokens).toBe(MOCK_INPUT_TOKENS);
  expect(usage.output_tokens - MOCK_OUTPUT_TOKENS).toBeGreaterThanOrEqual(0);
  expect(usage.output_tokens - MOCK_OUTPUT_TOKENS).toBeLessThanOrEqual(MESSAGE_START_OUTPUT_TOKENS);
  expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
}

describe('LangChain through the gateway', () => {
  const fx = useConformanceGateway();

  for (const client of LANGCHAIN_CHAT_CLIENTS) {
    describe(client, () => {
      const model = (channel: ChannelKind) => langchainModel(fx, client, CHANNEL_MODELS[channel]);

      compatEach(client, 'text', async (channel) => {
        const mark = fx.vendor.requests.length;
        const msg = await model(channel).invoke('Say hello.');
        expect(msg.text).toBe(hello(channel));
        expect(msg.usage_metadata).toMatchObject(mockUsage);
        const [up] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
        expect(sentRoles(up!)).toEqual(['user']);
      });

      compatEach(client, 'system + multi-turn', async (channel) => {
        const mark = fx.vendor.requests.length;
        const msg = await model(channel).invoke([
          new SystemMessage(SYSTEM),
          ...HISTORY.map((m) => (m.role === 'user' ? new HumanMessage(m.content) : new AIMessage(m.content))),
        ]);
        expect(msg.text).toBe(hello(channel));
        expectMultiTurnSent(fx, mark, channel, CHANNEL_MODELS[channel]);
      });

      compatEach(client, 'stream', async (channel) => {
        const mark = fx.vendor.requests.length;
        const { chunks, whole } = await collect(model(channel), BILLED_PROMPT);
        expect(whole.text).toBe(hello(channel));
        expect(chunks.filter((c) => c.text).length).toBeGreaterThan(1);
        if (client === '@langchain/anthropic') expectAnthropicStreamUsage(whole, channel);
        else expect(whole.usage_metadata).toMatchObject(mockUsage);
        expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: true });
      });

      compatEach(
        client,
        'stream (finish on every chunk)',
        async () => {
          // A Gemini upstream marking every chunk finished: the stream still ends only with the upstream's.
          const { whole } = await collect(langchainModel(fx, client, GEMINI_FINISH_EVERY_CHUNK_MODEL), 'Say hello.');
          expect(whole.text).toBe(hello('gemini'));
          if (client === '@langchain/anthropic') expectAnthropicStreamUsage(whole, 'gemini');
          else expect(whole.usage_metadata).toMatchObject(mockUsage);
        },
        ['gemini'],
      );

      compatEach(client, 'images', async (channel) => {
        const mark = fx.vendor.requests.length;
        const msg = await model(channel).invoke([imageMessage(client)]);
        // The mock describes the image it decoded: media type and byte count survive the conversion.
        expect(msg.text).toBe(`Image: image/png ${PNG_BYTES} bytes`);
        expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
      });

      compatEach(client, 'errors', async (channel) => {
        const mark = fx.vendor.requests.length;
        const err = await failure(langchainModel(fx, client, ERROR_MODELS[channel]).invoke('Say hello.'));
        // The upstream's 400 reaches LangChain as a 400 with the upstream's message, and is not retried.
        expect(err.status).toBe(HTTP_BAD_REQUEST);
        expect(err.message).toContain(`mock error ${HTTP_BAD_REQUEST}`);
        expect(fx.vendor.requests.slice(mark).map((r) => [r.vendor, sentModel(r)])).toEqual([
          [channel, UPSTREAM_ERROR_MODEL],
        ]);
      });

      if (client === '@langchain/anthropic') {
        compat(client, 'anthropic-beta header', 'anthropic', async () => {
          // `betas` sends the beta API's call (?beta=true) with the anthropic-beta header.
          const mark = fx.vendor.requests.length;
          await new ChatAnthropic({
            model: CHANNEL_MODELS.anthropic,
            apiKey: fx.key,
            anthropicApiUrl: fx.base,
            betas: [ANTHROPIC_BETA],
          }).invoke('Say hello.');
          const [up] = expectSent(fx, mark, 'anthropic', { model: CHANNEL_MODELS.anthropic, streamed: false });
          expect(up!.headers['anthropic-beta']).toContain(ANTHROPIC_BETA);
        });
      }

      it(`${client}: a model no channel serves is a 404, not retried`, async () => {
        const mark = fx.vendor.requests.length;
        const err = await failure(langchainModel(fx, client, NOT_SERVED_MODEL).invoke('Say hello.'));
        expect(err.status).toBe(HTTP_NOT_FOUND);
        expect(err.message).toContain(NOT_SERVED_MODEL);
        expect(fx.vendor.requests.length).toBe(mark);
      });
    });
  }

  compatEach(
    '@langchain/openai',
    'embeddings',
    async (channel) => {
      const model = EMBEDDING_MODELS[channel as keyof typeof EMBEDDING_MODELS];
      const mark = fx.vendor.requests.length;
      const embeddings = langchainEmbeddings(fx, model);
      // OpenAIEmbeddings asks for base64 vectors (Float32 little-endian) and decodes them.
      expect(await embeddings.embedDocuments(EMBEDDING_INPUTS)).toEqual(EMBEDDING_INPUTS.map(() => MOCK_EMBEDDING));
      const [up] = expectSent(fx, mark, channel, { model, streamed: false });
      if (channel === 'gemini') {
        expect(up!.path).toBe(`/v1beta/models/${model}:batchEmbedContents`);
        expect((up!.body.requests as unknown[]).length).toBe(EMBEDDING_INPUTS.length);
      } else {
        expect(up!.body).toMatchObject({ input: EMBEDDING_INPUTS, encoding_format: 'base64' });
      }
      expect(await embeddings.embedQuery(EMBEDDING_INPUTS[0]!)).toEqual(MOCK_EMBEDDING);
    },
    ['openai', 'gemini'],
  );
});
