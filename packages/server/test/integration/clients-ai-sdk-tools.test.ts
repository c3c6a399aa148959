import { generateObject, generateText, isStepCount, Output, streamText, tool } from 'ai';
import { describe, expect } from 'vitest';
import { aiSdkModel, AI_SDK_CHAT_CLIENTS } from '../support/ai-sdk-models.js';
import { compat, compatEach } from '../support/compat.js';
import {
  ANTHROPIC_TOOL_OUTPUT_MODEL,
  CHANNEL_MODELS,
  useConformanceGateway,
  type ChannelKind,
} from '../support/conformance.js';
import {
  expectJsonSchemaOf,
  ONE_CALL_PROMPT,
  PARALLEL_PROMPT,
  PERSON,
  PERSON_PROMPT,
  PERSON_SAMPLE,
  TIME_DESCRIPTION,
  TIME_INPUT,
  TIME_SCHEMA,
  TOOL_RESULT,
  WEATHER_DESCRIPTION,
  WEATHER_INPUT,
  WEATHER_SCHEMA,
} from '../support/conformance-fixtures.js';
import {
  expectSent,
  sentForcedTool,
  sentOutputSchema,
  sentRoles,
  sentToolResults,
  sentTools,
} from '../support/upstream-view.js';

/**
 * The Vercel AI SDK's tool calls (single, parallel, streamed, and the turn with their results) and structured
 * output (`Output.object`, `generateObject`, streamed) through the gateway to every channel type: the SDK parses
 * what the mock vendor generated from the schema it received, converted into the upstream's own format.
 */

const weather = tool({ description: WEATHER_DESCRIPTION, inputSchema: WEATHER_SCHEMA });
const localTime = tool({ description: TIME_DESCRIPTION, inputSchema: TIME_SCHEMA });
const TOOLS = { get_weather: weather, get_time: localTime };
/** A call and its result's turn. */
const TWO_STEPS = 2;

describe('Vercel AI SDK tools and structured output through the gateway', () => {
  const fx = useConformanceGateway();

  for (const client of AI_SDK_CHAT_CLIENTS) {
    describe(client, () => {
      const model = (channel: ChannelKind) => aiSdkModel(fx, client, CHANNEL_MODELS[channel]);

      compatEach(client, 'tool call', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = await generateText({ model: model(channel), tools: TOOLS, prompt: ONE_CALL_PROMPT });
        expect(r.finishReason).toBe('tool-calls');
        expect(r.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['get_weather', WEATHER_INPUT]]);
        const [up] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
        const offered = sentTools(up!);
        expect(offered.map((t) => t.name)).toEqual(['get_weather', 'get_time']);
        expectJsonSchemaOf(offered[0]!.schema, channel, ['city', 'unit', 'days']);
        expect(sentForcedTool(up!)).toBeUndefined();
      });

      compatEach(client, 'parallel tool calls', async (channel) => {
        const r = await generateText({ model: model(channel), tools: TOOLS, prompt: PARALLEL_PROMPT });
        expect(r.finishReason).toBe('tool-calls');
        expect(r.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
          ['get_weather', WEATHER_INPUT],
          ['get_time', TIME_INPUT],
        ]);
        expect(new Set(r.toolCalls.map((c) => c.toolCallId)).size).toBe(2);
      });

      compatEach(client, 'streamed tool calls', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = streamText({ model: model(channel), tools: TOOLS, prompt: PARALLEL_PROMPT });
        await r.consumeStream();
        // Arguments streamed in pieces (OpenAI deltas, Anthropic input_json_delta) are put back together per call.
        expect((await r.toolCalls).map((c) => [c.toolName, c.input])).toEqual([
          ['get_weather', WEATHER_INPUT],
          ['get_time', TIME_INPUT],
        ]);
        expect(await r.finishReason).toBe('tool-calls');
        expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: true });
      });

      compatEach(client, 'tool result turn', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = await generateText({
          model: model(channel),
          tools: {
            get_weather: tool({
              description: 'Get the weather of a city',
              inputSchema: WEATHER_SCHEMA,
              execute: async () => TOOL_RESULT,
            }),
          },
          prompt: ONE_CALL_PROMPT,
          stopWhen: isStepCount(TWO_STEPS),
        });
        expect(r.steps.length).toBe(TWO_STEPS);
        // The mock echoes the result it received as `Tool said: <content>`.
        expect(r.text).toMatch(/^Tool said: /);
        expect(r.text).toContain(TOOL_RESULT);
        expect(r.finishReason).toBe('stop');
        const [, second] = expectSent(fx, mark, channel, {
          model: CHANNEL_MODELS[channel],
          streamed: false,
          count: TWO_STEPS,
        });
        expect(sentRoles(second!)).toEqual(['user', 'assistant', 'tool']);
        expect(sentToolResults(second!).join('')).toContain(TOOL_RESULT);
      });

      compatEach(client, 'structured output', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = await generateText({
          model: model(channel),
          output: Output.object({ schema: PERSON }),
          prompt: PERSON_PROMPT,
        });
        expect(r.output).toEqual(PERSON_SAMPLE);
        const [up] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
        // The Anthropic provider asks a model it does not know as Claude for a forced `json` tool instead.
        const viaTool = client === 'ai-sdk/anthropic' && channel !== 'anthropic';
        expectJsonSchemaOf(
          viaTool ? sentTools(up!).at(-1)?.schema : sentOutputSchema(up!),
          channel,
          Object.keys(PERSON_SAMPLE),
        );
      });

      compatEach(client, 'structured output (stream)', async (channel) => {
        const mark = fx.vendor.requests.length;
        const r = streamText({
          model: model(channel),
          output: Output.object({ schema: PERSON }),
          prompt: PERSON_PROMPT,
        });
        await r.consumeStream();
        expect(await r.output).toEqual(PERSON_SAMPLE);
        expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: true });
      });

      compatEach(client, 'generateObject', async (channel) => {
        const r = await generateObject({ model: model(channel), schema: PERSON, prompt: PERSON_PROMPT });
        expect(r.object).toEqual(PERSON_SAMPLE);
        expect(r.finishReason).toBe('stop');
      });

      compat(client, 'structured output (forced tool)', 'anthropic', async () => {
        // A Claude model without native structured output: the schema goes upstream as a forced tool, never as
        // output_config (which that model refuses), and the tool's input comes back as the JSON text.
        const mark = fx.vendor.requests.length;
        const r = await generateText({
          model: aiSdkModel(fx, client, ANTHROPIC_TOOL_OUTPUT_MODEL),
          output: Output.object({ schema: PERSON }),
          prompt: PERSON_PROMPT,
        });
        expect(r.output).toEqual(PERSON_SAMPLE);
        expect(r.toolCalls).toEqual([]);
        const [up] = expectSent(fx, mark, 'anthropic', { model: ANTHROPIC_TOOL_OUTPUT_MODEL, streamed: false });
        expect(up!.body.output_config).toBeUndefined();
        expect(sentForcedTool(up!)).toBeDefined();
        expectJsonSchemaOf(sentTools(up!).at(-1)!.schema, 'anthropic', Object.keys(PERSON_SAMPLE));
      });
    });
  }
});
