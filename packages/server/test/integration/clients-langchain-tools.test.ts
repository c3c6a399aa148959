import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect } from 'vitest';
import { compat, compatEach } from '../support/compat.js';
import {
  ANTHROPIC_TOOL_OUTPUT_MODEL,
  CHANNEL_MODELS,
  useConformanceGateway,
  type ChannelKind,
} from '../support/conformance.js';
import { langchainModel, LANGCHAIN_CHAT_CLIENTS } from '../support/langchain-models.js';
import * as cases from '../support/conformance-fixtures.js';
import {
  expectSent,
  sentForcedTool,
  sentOutputSchema,
  sentRoles,
  sentToolResults,
  sentTools,
} from '../support/upstream-view.js';

/**
 * LangChain's bindTools (single, parallel, streamed calls and the ToolMessage turn) and withStructuredOutput
 * (each client's default method and the other one) through the gateway to every channel type: LangChain parses
 * what the mock vendor generated from the schema it received, converted into the upstream's own format.
 */

const getWeather = tool(async () => cases.TOOL_RESULT, {
  name: 'get_weather',
  description: cases.WEATHER_DESCRIPTION,
  schema: cases.WEATHER_SCHEMA,
});
const getTime = tool(async () => '10:00', {
  name: 'get_time',
  description: cases.TIME_DESCRIPTION,
  schema: cases.TIME_SCHEMA,
});
/** A call and its result's turn. */
const TWO_REQUESTS = 2;
/** The name LangChain gives a zod schema's tool or JSON schema. */
const EXTRACT = 'extract';

type StructuredMethod = 'jsonSchema' | 'functionCalling';

const calls = (msg: { tool_calls?: { name: string; args: unknown }[] }) =>
  (msg.tool_calls ?? []).map((c) => [c.name, c.args]);
const withTools = (model: BaseChatModel) => model.bindTools!([getWeather, getTime]);

describe('LangChain tools and structured output through the gateway', () => {
  const fx = useConformanceGateway();

  for (const client of LANGCHAIN_CHAT_CLIENTS) {
    describe(client, () => {
      const model = (channel: ChannelKind) => langchainModel(fx, client, CHANNEL_MODELS[channel]);
      // ChatOpenAI asks for a JSON schema by default and a forced tool on request; ChatAnthropic the other way round.
      const [defaultMethod, otherMethod]: StructuredMethod[] =
        client === '@langchain/anthropic' ? ['functionCalling', 'jsonSchema'] : ['jsonSchema', 'functionCalling'];

      /** The schema reached the upstream as `method` asks: as the output format, or as the one forced tool. */
      const expectStructuredSent = (mark: number, channel: ChannelKind, modelId: string, method: StructuredMethod) => {
        const [up] = expectSent(fx, mark, channel, { model: modelId, streamed: false });
        const props = Object.keys(cases.PERSON_SAMPLE);
        if (method === 'jsonSchema') return cases.expectJsonSchemaOf(sentOutputSchema(up!), channel, props);
        expect(sentForcedTool(up!)).toBe(EXTRACT);
        cases.expectJsonSchemaOf(sentTools(up!).find((t) => t.name === EXTRACT)?.schema, channel, props);
      };

      compatEach(client, 'tool call', async (channel) => {
        const mark = fx.vendor.requests.length;
        const msg = await withTools(model(channel)).invoke(cases.ONE_CALL_PROMPT);
        expect(calls(msg)).toEqual([['get_weather', cases.WEATHER_INPUT]]);
        const [up] = expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: false });
        const offered = sentTools(up!);
        expect(offered.map((t) => t.name)).toEqual(['get_weather', 'get_time']);
        cases.expectJsonSchemaOf(offered[0]!.schema, channel, ['city', 'unit', 'days']);
        expect(sentForcedTool(up!)).toBeUndefined();
      });

      compatEach(client, 'parallel tool calls', async (channel) => {
        const msg = await withTools(model(channel)).invoke(cases.PARALLEL_PROMPT);
        expect(calls(msg)).toEqual([
          ['get_weather', cases.WEATHER_INPUT],
          ['get_time', cases.TIME_INPUT],
        ]);
        expect(new Set(msg.tool_calls!.map((c) => c.id)).size).toBe(2);
      });

      compatEach(client, 'streamed tool calls', async (channel) => {
        const mark = fx.vendor.requests.length;
        const chunks: AIMessageChunk[] = [];
        for await (const chunk of await withTools(model(channel)).stream(cases.PARALLEL_PROMPT))
          chunks.push(chunk as AIMessageChunk);
        // Arguments streamed in pieces (OpenAI deltas, Anthropic input_json_delta) are put back together per call.
        expect(calls(chunks.reduce((a, b) => a.concat(b)))).toEqual([
          ['get_weather', cases.WEATHER_INPUT],
          ['get_time', cases.TIME_INPUT],
        ]);
        expectSent(fx, mark, channel, { model: CHANNEL_MODELS[channel], streamed: true });
      });

      compatEach(client, 'tool result turn', async (channel) => {
        const mark = fx.vendor.requests.length;
        const bound = withTools(model(channel));
        const history: BaseMessage[] = [new HumanMessage(cases.ONE_CALL_PROMPT)];
        const call = await bound.invoke(history);
        history.push(call, await getWeather.invoke(call.tool_calls![0]!));
        const answer = await bound.invoke(history);
        // The mock echoes the result it received as `Tool said: <content>`.
        expect(answer.text).toMatch(/^Tool said: /);
        expect(answer.text).toContain(cases.TOOL_RESULT);
        const [, second] = expectSent(fx, mark, channel, {
          model: CHANNEL_MODELS[channel],
          streamed: false,
          count: TWO_REQUESTS,
        });
        expect(sentRoles(second!)).toEqual(['user', 'assistant', 'tool']);
        expect(sentToolResults(second!).join('')).toContain(cases.TOOL_RESULT);
      });

      compatEach(client, 'structured output', async (channel) => {
        const mark = fx.vendor.requests.length;
        expect(await model(channel).withStructuredOutput(cases.PERSON).invoke(cases.PERSON_PROMPT)).toEqual(
          cases.PERSON_SAMPLE,
        );
        expectStructuredSent(mark, channel, CHANNEL_MODELS[channel], defaultMethod!);
      });

      compatEach(client, `structured output (${otherMethod})`, async (channel) => {
        const mark = fx.vendor.requests.length;
        expect(
          await model(channel).withStructuredOutput(cases.PERSON, { method: otherMethod }).invoke(cases.PERSON_PROMPT),
        ).toEqual(cases.PERSON_SAMPLE);
        expectStructuredSent(mark, channel, CHANNEL_MODELS[channel], otherMethod!);
      });

      compat(client, 'structured output (forced tool)', 'anthropic', async () => {
        // A Claude model without native structured output gets the schema as a forced tool, never as output_config
        // (which that model refuses): the gateway's conversion for ChatOpenAI, ChatAnthropic's own default.
        const mark = fx.vendor.requests.length;
        const structured = langchainModel(fx, client, ANTHROPIC_TOOL_OUTPUT_MODEL).withStructuredOutput(cases.PERSON);
        expect(await structured.invoke(cases.PERSON_PROMPT)).toEqual(cases.PERSON_SAMPLE);
        const [up] = expectSent(fx, mark, 'anthropic', { model: ANTHROPIC_TOOL_OUTPUT_MODEL, streamed: false });
        expect(up!.body.output_config).toBeUndefined();
        expect(sentForcedTool(up!)).toBeDefined();
        cases.expectJsonSchemaOf(sentTools(up!).at(-1)?.schema, 'anthropic', Object.keys(cases.PERSON_SAMPLE));
      });
    });
  }
});
