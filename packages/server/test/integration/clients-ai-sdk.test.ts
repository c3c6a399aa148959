import { APICallError, embed, embedMany, generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  aiSdkEmbeddingModel,
  aiSdkModel,
  AI_SDK_CHAT_CLIENTS,
  AI_SDK_EMBEDDING_CLIENTS,
} from '../support/ai-sdk-models.js';
import { compat, compatEach } from '../support/compat.js';
import {
  CHANNEL_MODELS,
  EMBEDDING_MODELS,
  ERROR_MODELS,
  GEMINI_FINISH_EVERY_CHUNK_MODEL,
  UPSTREAM_ERROR_MODEL,
  useConformanceGateway,
} from '../support/conformance.js';
import { expectMultiTurnSent, HISTORY, PNG_BASE64, PNG_BYTES, SYSTEM } from '../support/conformance-fixtures.js';
import { MOCK_EMBEDDING, MOCK_INPUT_TOKENS, MOCK_OUTPUT_TOKENS } from '../support/mock-vendor.js';
import { expectSent, sentModel, sentRoles, sentSystem } from '../support/upstream-view.js';

/**
 * The Vercel AI SDK (`ai` with its OpenAI (Responses and chat), OpenAI-compatible, Anthropic and Google
 * providers) through the gateway to OpenAI, Anthropic and Gemini channels: text, usage, system prompts,
 * multi-turn, streams, images, embeddings and errors, checked in what the SDK returns and what the upstream got.
 */

const NOT_SERVED_MODEL = 'no-such-model';
const HTTP_BAD_REQUEST = 400;
const HTTP_NOT_FOUND = 404;
const EMBEDDING_INPUTS = ['first text', 'second text'];
/** A beta feature a user turns on by header. */
const ANTHROPIC_BETA = 'token-efficient-tools-2025-02-19';

const hello = (channel: string) => `Hello from ${channel}`;
const mockUsage = {
  inputTokens: MOCK_INPUT_TOKENS,
  outputTokens: MOCK_OUTPUT_TOKENS,
  totalTokens: MOCK_INPUT_TOKENS + MOCK_OUTPUT_TOKENS,
};

/** The error a call rejects with. */
async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.unreachable('the call succeeded'),
    (err: unknown) => err,
  );
}

describe('Vercel AI SDK through the gateway', () => {
  const fx = useConformanceGateway();

  for (const client of AI_SDK_CHAT_CLIENTS) {
    describe(client, () => {
      compatEach(client, 'text', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = await generateText({ model: aiSdkModel(fx, client, CHANNEL_MODELS[channel]), prompt: 'Say hello.' });
        expect(r.text).toBe(hello(channel));
        expect(r.finishReason).toBe('stop');
        expect(r.usage).toMatchObject(mockUsage);
        const [up] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
        expect(sentRoles(up!)).toEqual(['user']);
        expect(sentSystem(up!)).toBeUndefined();
      });

      compatEach(client, 'system + multi-turn', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = await generateText({
          model: aiSdkModel(fx, client, CHANNEL_MODELS[channel]),
          system: SYSTEM,
          messages: HISTORY,
        });
        expect(r.text).toBe(hello(channel));
        expectMultiTurnSent(fx, mark, channel, CHANNEL_MODELS[channel]);
      });

      compatEach(client, 'stream', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = streamText({
          model: aiSdkModel(fx, client, CHANNEL_MODELS[channel]),
          system: SYSTEM,
          prompt: 'Say hello.',
        });
        const pieces: string[] = [];
        for await (const piece of r.textStream) pieces.push(piece);
        expect(pieces.join('')).toBe(hello(channel));
        expect(pieces.length).toBeGreaterThan(1);
        expect(await r.finishReason).toBe('stop');
        expect(await r.usage).toMatchObject(mockUsage);
        const [up] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: true });
        expect(sentSystem(up!)).toBe(SYSTEM);
      });

      compatEach(
        client,
        'stream (finish on every chunk)',
        async () => {
          // A Gemini upstream marking every chunk finished: the stream still ends only with the upstream's.
          const r = streamText({
            model: aiSdkModel(fx, client, GEMINI_FINISH_EVERY_CHUNK_MODEL),
            prompt: 'Say hello.',
          });
          expect(await r.text).toBe(hello('gemini'));
          expect(await r.finishReason).toBe('stop');
          expect(await r.usage).toMatchObject(mockUsage);
        },
        ['gemini'],
      );

      compatEach(client, 'images', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = await generateText({
          model: aiSdkModel(fx, client, CHANNEL_MODELS[channel]),
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is in this image?' },
                { type: 'image', image: PNG_BASE64, mediaType: 'image/png' },
              ],
            },
          ],
        });
        // The mock describes the image it decoded: media type and byte count survive the conversion.
        expect(r.text).toBe(`Image: image/png ${PNG_BYTES} bytes`);
        expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
      });

      compatEach(client, 'errors', async (channel) => {
        const mark = fx.vendor.requests.length;
        const err = await failure(
          generateText({ model: aiSdkModel(fx, client, ERROR_MODELS[channel]), prompt: 'Say hello.' }),
        );
        // The upstream's 400 reaches the SDK as a 400 in its own protocol, with the upstream's message, not retried.
        expect(APICallError.isInstance(err)).toBe(true);
        expect(err).toMatchObject({ statusCode: HTTP_BAD_REQUEST, isRetryable: false });
        expect((err as APICallError).message).toContain(`mock error ${HTTP_BAD_REQUEST}`);
        const sent = fx.vendor.requests.slice(mark);
        expect(sent.map((r) => [r.vendor, sentModel(r)])).toEqual([[channel, UPSTREAM_ERROR_MODEL]]);
      });

      if (client === 'ai-sdk/anthropic') {
        compat(client, 'anthropic-beta header', 'anthropic', async () => {
          const mark = fx.vendor.requests.length;
          await generateText({
            model: aiSdkModel(fx, client, CHANNEL_MODELS.anthropic),
            prompt: 'Say hello.',
            headers: { 'anthropic-beta': ANTHROPIC_BETA },
          });
          const [up] = expectSent(fx, mark, 'anthropic', { model: CHANNEL_MODELS.anthropic, streamed: false });
          expect(up!.headers['anthropic-beta']).toContain(ANTHROPIC_BETA);
        });
      }

      it(`${client}: a model no channel serves is a 404 APICallError, not retried`, async () => {
        const mark = fx.vendor.requests.length;
        const err = await failure(
          generateText({ model: aiSdkModel(fx, client, NOT_SERVED_MODEL), prompt: 'Say hello.' }),
        );
        expect(APICallError.isInstance(err)).toBe(true);
        expect(err).toMatchObject({ statusCode: HTTP_NOT_FOUND, isRetryable: false });
        expect((err as APICallError).message).toContain(NOT_SERVED_MODEL);
        expect(fx.vendor.requests.length).toBe(mark);
      });
    });
  }

  for (const client of AI_SDK_EMBEDDING_CLIENTS) {
    const channels = ['openai', 'gemini'] as const;
    compatEach(
      client,
      'embeddings',
      async (channel) => {
        const model = EMBEDDING_MODELS[channel as keyof typeof EMBEDDING_MODELS];
        const mark = fx.vendor.requests.length;
        const many = await embedMany({ model: aiSdkEmbeddingModel(fx, client, model), values: EMBEDDING_INPUTS });
        expect(many.embeddings).toEqual(EMBEDDING_INPUTS.map(() => MOCK_EMBEDDING));
        const [up] = expectSent(fx, mark, channel, { model, streamed: false });
        if (channel === 'gemini') {
          expect(up!.path).toBe(`/v1beta/models/${model}:batchEmbedContents`);
          expect((up!.body.requests as unknown[]).length).toBe(EMBEDDING_INPUTS.length);
        } else {
          expect(up!.path).toBe('/v1/embeddings');
          expect(up!.body.input).toEqual(EMBEDDING_INPUTS);
        }
        const one = await embed({ model: aiSdkEmbeddingModel(fx, client, model), value: EMBEDDING_INPUTS[0]! });
        expect(one.embedding).toEqual(MOCK_EMBEDDING);
      },
      channels,
    );
  }
});
