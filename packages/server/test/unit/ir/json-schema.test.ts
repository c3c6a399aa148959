import { describe, expect, it } from 'vitest';
import { geminiGenerate, geminiSchema } from '../../../src/relay/providers/gemini/convert.js';
import { jsonSchemaFromGemini } from '../../../src/relay/providers/gemini/json-schema.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { anthropicMessages } from '../../../src/relay/providers/anthropic/convert.js';

describe('Gemini schema → JSON Schema', () => {
  it('lower-cases types, folds nullable into the type and enum, drops OpenAPI-only keywords', () => {
    const gemini = {
      type: 'OBJECT',
      description: 'A person',
      properties: {
        name: { type: 'STRING', minLength: '1' },
        age: { type: 'INTEGER', format: 'int32', nullable: true, minimum: 0 },
        mood: { type: 'STRING', format: 'enum', enum: ['happy', 'sad'], nullable: true },
        born: { type: 'STRING', format: 'date-time' },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: '3' },
        pet: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }], nullable: true },
      },
      required: ['name'],
      propertyOrdering: ['name', 'age'],
      example: { name: 'x' },
    };
    expect(jsonSchemaFromGemini(gemini)).toEqual({
      type: 'object',
      description: 'A person',
      properties: {
        name: { type: 'string', minLength: 1 },
        age: { type: ['integer', 'null'], minimum: 0 },
        mood: { type: ['string', 'null'], enum: ['happy', 'sad', null] },
        born: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        pet: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
      },
      required: ['name'],
    });
  });

  it('leaves JSON Schema as it is', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, b: { $ref: '#/$defs/b' } },
      $defs: { b: { type: 'integer' } },
      additionalProperties: false,
      required: ['a'],
    };
    expect(jsonSchemaFromGemini(schema)).toEqual(schema);
  });

  it('ignores TYPE_UNSPECIFIED, survives non-objects and deep nesting', () => {
    expect(jsonSchemaFromGemini({ type: 'TYPE_UNSPECIFIED', description: 'x' })).toEqual({ description: 'x' });
    expect(jsonSchemaFromGemini(null)).toEqual({});
    let deep: Record<string, unknown> = { type: 'STRING' };
    for (let i = 0; i < 100; i++) deep = { type: 'ARRAY', items: deep };
    expect(JSON.stringify(jsonSchemaFromGemini(deep)).length).toBeLessThan(2000);
  });

  it('round trip JSON Schema → Gemini → JSON Schema keeps types and nullability', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, n: { type: 'integer' } },
      required: ['n'],
    };
    expect(jsonSchemaFromGemini(geminiSchema(schema))).toEqual(schema);
  });
});

describe('Gemini requests carry JSON Schema into the IR', () => {
  const body = {
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    tools: [
      {
        functionDeclarations: [
          {
            name: 'lookup',
            description: 'Find',
            parameters: { type: 'OBJECT', properties: { q: { type: 'STRING', nullable: true } }, required: ['q'] },
          },
          {
            name: 'raw',
            parametersJsonSchema: {
              type: 'object',
              properties: { x: { type: 'string' } },
              additionalProperties: false,
            },
          },
        ],
      },
    ],
    generationConfig: {
      responseMimeType: 'application/json',
      responseSchema: { type: 'ARRAY', items: { type: 'OBJECT', properties: { ok: { type: 'BOOLEAN' } } } },
    },
  };

  it('function parameters reach an OpenAI upstream lower-cased; parametersJsonSchema as given', () => {
    const ir = geminiGenerate.requestToIR(body);
    const out = openAIChat.requestFromIR({ ...ir, model: 'gpt-4o-mini' });
    expect(out.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Find',
          parameters: { type: 'object', properties: { q: { type: ['string', 'null'] } }, required: ['q'] },
        },
      },
      {
        type: 'function',
        function: {
          name: 'raw',
          parameters: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false },
        },
      },
    ]);
    expect(out.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'response',
        schema: { type: 'array', items: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      },
    });
  });

  it('responseJsonSchema (snake_case too) is taken as is, and reaches an Anthropic upstream', () => {
    const ir = geminiGenerate.requestToIR({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generation_config: {
        response_mime_type: 'application/json',
        response_json_schema: { type: 'object', properties: { n: { type: 'integer' } } },
      },
    });
    expect(ir.responseFormat).toEqual({
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
    });
    const out = anthropicMessages.requestFromIR({ ...ir, model: 'claude-sonnet-4-5' });
    expect(out.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
      },
    });
  });

  it('a Gemini upstream gets the OpenAPI subset back (responseSchema, parameters)', () => {
    const ir = openAIChat.requestToIR({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'f',
            parameters: {
              type: 'object',
              properties: { a: { type: ['string', 'null'] } },
              additionalProperties: false,
            },
          },
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'x',
          schema: { type: 'object', properties: { ok: { type: 'boolean' } }, additionalProperties: false },
        },
      },
    });
    const out = geminiGenerate.requestFromIR(ir);
    expect(out.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string', nullable: true } } } },
        ],
      },
    ]);
    expect(out.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
  });
});
