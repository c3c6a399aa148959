import { expect } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import type { ChannelKind, ConformanceFixture } from './conformance.js';
import { SAMPLE_BOOLEAN, SAMPLE_NUMBER, SAMPLE_STRING } from './mock-vendor.js';
import { hasUpperCaseTypes } from './schema-sample.js';
import { expectSent, sentRoles, sentSystem } from './upstream-view.js';

/** What the client conformance tests send, shared by every client's file. */

/** A 1×1 transparent PNG (base64) and its size in bytes. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const PNG_BYTES = Buffer.from(PNG_BASE64, 'base64').length;

export const SYSTEM = 'Answer in one short sentence.';
/**
 * A one-message prompt OpenAI bills MOCK_INPUT_TOKENS (11) for: 4 tokens of text, 3 of framing and 1 of role for
 * the message, 3 priming the reply (its token-counting guide; `encodeChat` of gpt-tokenizer agrees). What a
 * stream's message_start says of an OpenAI-format upstream's prompt is checked against it.
 */
export const BILLED_PROMPT = 'Count to three.';
/** The multi-turn conversation: the model is asked what it was told in the first turn. */
export const HISTORY = [
  { role: 'user' as const, content: 'My name is Ada.' },
  { role: 'assistant' as const, content: 'Nice to meet you, Ada.' },
  { role: 'user' as const, content: 'What is my name?' },
];

/** The upstream received SYSTEM and HISTORY in its own format (one unstreamed call). */
export function expectMultiTurnSent(fx: ConformanceFixture, mark: number, channel: ChannelKind, model: string): void {
  const [up] = expectSent(fx, mark, channel, { model, streamed: false });
  expect(sentSystem(up!)).toBe(SYSTEM);
  expect(sentRoles(up!)).toEqual(['user', 'assistant', 'user']);
  expect(JSON.stringify(up!.body)).toContain(HISTORY[1].content);
}

// Tools and structured output of the framework files (AI SDK, LangChain), as zod schemas.

export const WEATHER_DESCRIPTION = 'Get the weather of a city';
export const WEATHER_SCHEMA = z.object({
  city: z.string(),
  unit: z.enum(['celsius', 'fahrenheit']),
  days: z.number().int(),
});
export const TIME_DESCRIPTION = 'Get the local time of a city';
export const TIME_SCHEMA = z.object({ city: z.string() });
/** What the mock vendor answers for each tool's schema. */
export const WEATHER_INPUT = { city: SAMPLE_STRING, unit: 'celsius', days: SAMPLE_NUMBER };
export const TIME_INPUT = { city: SAMPLE_STRING };
export const ONE_CALL_PROMPT = 'What is the weather in Paris?';
export const PARALLEL_PROMPT = 'Get the weather and the local time in Paris, in parallel.';
export const TOOL_RESULT = 'sunny, 21 degrees';

export const PERSON = z.object({
  name: z.string(),
  age: z.number(),
  tags: z.array(z.string()),
  verified: z.boolean(),
  address: z.object({ city: z.string(), zip: z.string() }),
});
/** What the mock vendor generates from PERSON's schema. */
export const PERSON_SAMPLE = {
  name: SAMPLE_STRING,
  age: SAMPLE_NUMBER,
  tags: [SAMPLE_STRING],
  verified: SAMPLE_BOOLEAN,
  address: { city: SAMPLE_STRING, zip: SAMPLE_STRING },
};
export const PERSON_PROMPT = 'Invent a person.';

/** The upstream's schema for a vendor that reads JSON Schema: lower-case types, these properties. */
export function expectJsonSchemaOf(schema: unknown, channel: ChannelKind, properties: string[]): void {
  expect(schema).toBeDefined();
  if (channel !== 'gemini') expect(hasUpperCaseTypes(schema)).toBe(false);
  expect(Object.keys((schema as { properties?: object }).properties ?? {}).sort()).toEqual([...properties].sort());
}

// The official SDK files (openai, @anthropic-ai/sdk, @google/genai): JSON Schema tools, a smaller person.

/** The arguments the mock vendor generates for the SDK files' weather and time tools. */
export const SDK_WEATHER_ARGS = { city: SAMPLE_STRING, unit: 'celsius' };
export const SDK_TIME_ARGS = { zone: SAMPLE_STRING };
/** The openai helpers take zod v3 schemas. */
export const SDK_PERSON = z3.object({ name: z3.string(), age: z3.number().int(), tags: z3.array(z3.string()) });
/** What the mock vendor generates from SDK_PERSON's schema. */
export const SDK_PERSON_SAMPLE = { name: SAMPLE_STRING, age: SAMPLE_NUMBER, tags: [SAMPLE_STRING] };
