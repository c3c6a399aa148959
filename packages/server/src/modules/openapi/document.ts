import { z } from 'zod';
import type { RouteDef } from '../../http/route.js';

const toSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as Record<string, unknown>;

const levelText = {
  public: 'public',
  user: 'logged-in user',
  admin: 'administrator (role >= 10)',
  root: 'super administrator (role 100)',
};

/** OpenAPI 3 path from a Fastify path: `/api/user/:id` → `/api/user/{id}`. */
const openapiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

const failure = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } };

/** Builds the OpenAPI 3 document from the same route definitions and zod schemas the server validates with. */
export function buildOpenApi(routes: RouteDef[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of routes) {
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['query', def.query],
      ['path', def.params],
    ] as const) {
      if (!schema) continue;
      const json = toSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, prop] of Object.entries(json.properties ?? {})) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || (json.required ?? []).includes(name),
          schema: prop,
        });
      }
    }
    if (def.level !== 'public')
      parameters.push({
        name: 'New-Api-User',
        in: 'header',
        required: true,
        schema: { type: 'integer' },
        description: 'id of the calling user',
      });
    if (def.apiKey)
      parameters.push({
        name: 'Authorization',
        in: 'header',
        required: true,
        schema: { type: 'string' },
        description: 'an API key: Bearer sk-… (a session does not stand for one)',
      });
    const envelope = {
      type: 'object',
      required: ['success', 'message'],
      properties: {
        success: { type: 'boolean' },
        message: { type: 'string' },
        ...(def.response ? { data: toSchema(def.response, 'output') } : {}),
      },
    };
    const op: Record<string, unknown> = {
      summary: def.summary,
      description: `Access: ${def.apiKey ? 'an API key (Authorization: Bearer sk-…)' : levelText[def.level]}.${def.rateLimit ? ' Rate limited per IP (critical limit).' : ''}`,
      tags: def.tags,
      operationId: `${def.method.toLowerCase()}${def.url.replace(/[^a-zA-Z0-9]+(\w)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      parameters,
      responses: {
        // Refusals (invalid input, not found, conflict…) are 200 with success false, as in new-api.
        200: {
          description: 'Envelope: success with data, or success false with the reason (invalid input names the field)',
          content: { 'application/json': { schema: envelope } },
        },
        ...(def.level !== 'public'
          ? { 401: { description: 'Not logged in', ...failure }, 403: { description: 'Insufficient role', ...failure } }
          : {}),
        ...(def.apiKey ? { 401: { description: 'No API key, or an unknown one', ...failure } } : {}),
        ...(def.rateLimit ? { 429: { description: 'Too many requests', ...failure } } : {}),
      },
      security: def.level === 'public' ? [] : [{ session: [] }, { accessToken: [] }],
    };
    if (def.body)
      op.requestBody = { required: true, content: { 'application/json': { schema: toSchema(def.body, 'input') } } };
    (paths[openapiPath(def.url)] ??= {})[def.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Tollway management API',
      version,
      description:
        'Every response is the envelope {success, message, data}; a refusal is HTTP 200 with success false, except 401 (not logged in), 403 (role) and 429 (rate limit).',
    },
    paths,
    components: {
      schemas: {
        Failure: {
          type: 'object',
          properties: { success: { type: 'boolean', enum: [false] }, message: { type: 'string' } },
        },
      },
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'session' },
        accessToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
      },
    },
  };
}
