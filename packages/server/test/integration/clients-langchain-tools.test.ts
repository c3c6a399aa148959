import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { compat, compatEach } from '../support/compat.js';
import { ANTHROPIC_TOOL_OUTPUT_MODEL, CHANNEL_MODELS, useConformanceGateway, type ChannelKind } from '../support/conformance.js';
import { langchainModel, LANGCHAIN_CHAT_CLIENTS } from '../support/langchain-models.js';
import { SAMPLE_BOOLEAN, SAMPLE_NUMBER, SAMPLE_STRING } from '../support/mock-vendor.js';
import { hasUpperCaseTypes } from '../support/schema-sample.js';
import { expectSent, sentForcedTool, sentOutputSchema, sentRoles, sentToolResults, sentTools } from '../support/upstream-view.js';

/**
 * LangChain's bindTools (single, parallel, streamed calls and the ToolMessage turn) and withStructuredOutput
 * (each client's default method and the other one) through the gateway to every channel type: LangChain parses
 * what the mock vendor generated from the schema it received, converted into the upstream's own format.
 */

const TOOL_RESULT = 'sunny, 21 degrees';
const getWeather = tool(async () => TOOL_RESULT, {
  name: 'get_weather',
  description: 'Get the weather of a city',
  schema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']), days: z.number().int() }),
});
const getTime = tool(async () => '10:00', { name: 'get_time', description: 'Get the local time of a city', schema: z.object({ city: z.string() }) });
/** What the mock vendor answers for each tool's schema. */
const WEATHER_ARGS = { city: SAMPLE_STRING, unit: 'celsius', days: SAMPLE_NUMBER };
const TIME_ARGS = { city: SAMPLE_STRING };
const ONE_CALL_PROMPT = 'What is the weather in Paris?';
const PARALLEL_PROMPT = 'Get the weather and the local time in Paris, in parallel.';
/** A call and its result's turn. */
const TWO_REQUESTS = 2;

const PERSON = z.object({
  name: z.string(),
  age: z.number(),
  tags: z.array(z.string()),
  verified: z.boolean(),
  address: z.object({ city: z.string(), zip: z.string() }),
});
/** What the mock vendor generates from PERSON's schema. */
const PERSON_SAMPLE = { name: SAMPLE_STRING, age: SAMPLE_NUMBER, tags: [SAMPLE_STRING], verified: SAMPLE_BOOLEAN, address: { city: SAMPLE_STRING, zip: SAMPLE_STRING } };
const PERSON_PROMPT = 'Invent a person.';
/** The name LangChain gives a zod schema's tool or JSON schema. */
const EXTRACT = 'extract';

type StructuredMethod = 'jsonSchema' | 'functionCalling';

/** The upstream's schema for a vendor that reads JSON Schema: lower-case types, these properties. */
function expectJsonSchemaOf(schema: unknown, channel: ChannelKind, properties: string[]): void {
  expect(schema).toBeDefined();
  if (channel !== 'gemini') expect(hasUpperCaseTypes(schema)).toBe(false);
  expect(Object.keys((schema as { properties?: object }).properties ?? {}).sort()).toEqual([...properties].sort());
}

const calls = (msg: { tool_calls?: { name: string; args: unknown }[] }) => (msg.tool_calls ?? []).map((c) => [c.name, c.args]);
const withTools = (model: BaseChatModel) => model.bindTools!([getWeather, getTime]);

describe('LangChain tools and structured output through the gateway', () => {
  const fx = useConformanceGateway();

  for (const client of LANGCHAIN_CHAT_CLIENTS) {
    describe(client, () => {
      const model = (channel: ChannelKind) => langchainModel(fx, client, CHANNEL_MODELS[channel]);
      // ChatOpenAI asks for a JSON schema by default and a forced tool on request; ChatAnthropic the other way round.
      const [defaultMethod, otherMethod]: StructuredMethod[] = client === '@langchain/anthropic' ? ['functionCalling', 'jsonSchema'] : ['jsonSchema', 'functionCalling'];

      /** The schema reached the upstream as `method` asks: as the output format, or as the one forced tool. */
      const expectStructuredSent = (mark: number, channel: ChannelKind, modelId: string, method: StructuredMethod) => {
        const [up] = expectSent(fx, mark, channel, { model: modelId, streamed: false });
        const props = Object.keys(PERSON_SAMPLE);
        if (method === 'jsonSchema') return expectJsonSchemaOf(sentOutputSchema(up!), channel, props);
        expect(sentForcedTool(up!)).toBe(EXTRACT);
        expectJsonSchemaOf(sentTools(up!).find((t) => t.name === EXTRACT)?.schema, channel, props);
      };

      compatEach(client, 'tool call', async (channel) => {
        const mark = fx.vendor.requests.length;
        const msg = await withTools(model(channel)).invoke(ONE_CALL_PROMPT);
        expect(calls(msg)).toEqual([['get_weather', WEATHER_ARGS]]);
        const [up] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
        const offered = sentTools(up!);
        expect(offered.map((t) => t.name)).toEqual(['get_weather', 'get_time']);
        expectJsonSchemaOf(offered[0]!.schema, channel, ['city', 'unit', 'days']);
        expect(sentForcedTool(up!)).toBeUndefined();
      });

      compatEach(client, 'parallel tool calls', async (channel) => {
        const msg = await withTools(model(channel)).invoke(PARALLEL_PROMPT);
        expect(calls(msg)).toEqual([['get_weather', WEATHER_ARGS], ['get_time', TIME_ARGS]]);
        expect(new Set(msg.tool_calls!.map((c) => c.id)).size).toBe(2);
      });

      compatEach(client, 'streamed tool calls', async (channel) => {
        const mark = fx.vendor.requests.length;
        const chunks: AIMessageChunk[] = [];
        for await (const chunk of await withTools(model(channel)).stream(PARALLEL_PROMPT)) chunks.push(chunk as AIMessageChunk);
        // Arguments streamed in pieces (OpenAI deltas, Anthropic input_json_delta) are put back together per call.
        expect(calls(chunks.reduce((a, b) => a.concat(b)))).toEqual([['get_weather', WEATHER_ARGS], ['get_time', TIME_ARGS]]);
        expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: true });
      });

      compatEach(client, 'tool result turn', async (channel) => {
        const mark = fx.vendor.requests.length;
        const bound = withTools(model(channel));
        const history: BaseMessage[] = [new HumanMessage(ONE_CALL_PROMPT)];
        const call = await bound.invoke(history);
        history.push(call, await getWeather.invoke(call.tool_calls![0]!));
        const answer = await bound.invoke(history);
        // The mock echoes the result it received as `Tool said: <content>`.
        expect(answer.text).toMatch(/^Tool said: /);
        expect(answer.text).toContain(TOOL_RESULT);
        const [, second] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false, count: TWO_REQUESTS });
        expect(sentRoles(second!)).toEqual(['user', 'assistant', 'tool']);
        expect(sentToolResults(second!).join('')).toContain(TOOL_RESULT);
      });

      compatEach(client, 'structured output', async (channel) => {
        const mark = fx.vendor.requests.length;
        expect(await model(channel).withStructuredOutput(PERSON).invoke(PERSON_PROMPT)).toEqual(PERSON_SAMPLE);
        expectStructuredSent(mark, channel, CHANNEL_MODELS[channel], defaultMethod!);
      });

      compatEach(client, `structured output (${otherMethod})`, async (channel) => {
        const mark = fx.vendor.requests.length;
        expect(await model(channel).withStructuredOutput(PERSON, { method: otherMethod }).invoke(PERSON_PROMPT)).toEqual(PERSON_SAMPLE);
        expectStructuredSent(mark, channel, CHANNEL_MODELS[channel], otherMethod!);
      });

      compat(client, 'structured output (forced tool)', 'anthropic', async () => {
        // A Claude model without native structured output gets the schema as a forced tool, never as output_config
        // (which that model refuses): the gateway's conversion for ChatOpenAI, ChatAnthropic's own default.
        const mark = fx.vendor.requests.length;
        const structured = langchainModel(fx, client, ANTHROPIC_TOOL_OUTPUT_MODEL).withStructuredOutput(PERSON);
        expect(await structured.invoke(PERSON_PROMPT)).toEqual(PERSON_SAMPLE);
        const [up] = expectSent(fx, mark, 'anthropic', { model: ANTHROPIC_TOOL_OUTPUT_MODEL, streamed: false });
        expect(up!.body.output_config).toBeUndefined();
        expect(sentForcedTool(up!)).toBeDefined();
        expectJsonSchemaOf(sentTools(up!).at(-1)?.schema, 'anthropic', Object.keys(PERSON_SAMPLE));
      });
    });
  }
});
