import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../src/http/route.js';
import { setupRoot, startTestApp, type Client, type TestApp } from '../support/app.js';
import { expectRefused } from '../support/refusal.js';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
};

/** A value of a type the field does not accept (undefined when it accepts every JSON type). */
function wrongValue(s: JsonSchema): unknown {
  if (s.enum) return '__not_in_enum__';
  const types = new Set(
    [s.type, ...(s.anyOf ?? []).map((a) => a.type)]
      .flat()
      .filter(Boolean)
      .map((t) => (t === 'integer' ? 'number' : t)),
  );
  const candidates: [string, unknown][] = [
    ['string', 'not-a-number'],
    ['number', 12345],
    ['boolean', true],
    ['object', { nested: true }],
    ['array', [1]],
  ];
  return candidates.find(([type]) => !types.has(type))?.[1];
}

/** Routes answering a foreign party in that party's protocol, not new-api's envelope. */
const FOREIGN_PROTOCOL_ROUTES = new Set(['POST /api/oauth/custom/:provider/backchannel-logout']);

/**
 * Bad input over every route: malformed JSON, wrong top-level shapes, each field with a wrong type, missing
 * required fields, bad query and path values, oversized bodies. All must be refusals: HTTP 200 with {success:false, message}
 * naming the field; none may be a 5xx.
 */
describe('bad input over every route', () => {
  let t: TestApp;
  let root: Client;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { MAX_REQUEST_BODY_MB: '1' });
    root = await setupRoot(t.app);
  });
  afterAll(async () => t?.close());

  const urlOf = (def: RouteDef) => def.url.replace(/:(\w+)/g, '1');
  const send = (def: RouteDef, payload: string, url = urlOf(def)) =>
    t.app.inject({
      method: def.method,
      url,
      headers: { cookie: root.cookie, 'new-api-user': String(root.userId), 'content-type': 'application/json' },
      payload,
    });

  it('answers malformed JSON, wrong shapes, wrong field types and missing fields as refusals naming the field', async () => {
    const bodyRoutes = t.router.routes.filter((r) => r.body);
    expect(bodyRoutes.length).toBeGreaterThan(8);
    for (const def of bodyRoutes) {
      const label = `${def.method} ${def.url}`;
      expectRefused(await send(def, '{"oops": '), `${label} malformed`, 'malformed JSON body');
      expectRefused(await send(def, '[1,2,3]'), `${label} array`);
      expectRefused(await send(def, '"text"'), `${label} string`);
      const schema = z.toJSONSchema(def.body!, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      for (const [field, prop] of Object.entries(schema.properties ?? {})) {
        const bad = wrongValue(prop);
        if (bad === undefined) continue;
        expectRefused(
          await send(def, JSON.stringify({ [field]: bad })),
          `${label} ${field}=${JSON.stringify(bad)}`,
          field,
        );
      }
      for (const field of schema.required ?? []) {
        expectRefused(await send(def, '{}'), `${label} missing ${field}`, field);
      }
    }
  });

  it('rejects bad query and path values naming them', async () => {
    for (const def of t.router.routes.filter((r) => r.query)) {
      const schema = z.toJSONSchema(def.query!, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
      for (const [field, prop] of Object.entries(schema.properties ?? {})) {
        const types = [prop.type, ...(prop.anyOf ?? []).map((a) => a.type)].flat();
        if (!types.includes('number') && !types.includes('integer')) continue;
        const res = await send(def, '{}', `${urlOf(def)}?${field}=abc`);
        expectRefused(res, `${def.method} ${def.url}?${field}=abc`, field);
      }
    }
    for (const def of t.router.routes.filter((r) => r.params)) {
      const res = await send(def, '{}', def.url.replace(/:(\w+)/g, 'not-a-number'));
      const label = `${def.method} ${def.url} bad param`;
      // Endpoints another party calls in its own protocol answer in that protocol (OpenID back-channel logout: 400
      // with error and error_description), never a server error.
      if (FOREIGN_PROTOCOL_ROUTES.has(`${def.method} ${def.url}`)) {
        expect(res.statusCode, label).toBe(400);
        expect(res.json(), label).toMatchObject({ error: 'invalid_request' });
      } else {
        // Refused naming the parameter (an id) or the value sent (a provider's name).
        expectRefused(res, label);
        const schema = z.toJSONSchema(def.params!, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
        const names = Object.keys(schema.properties ?? {});
        expect(res.json().message, label).toMatch(new RegExp([...names, 'not-a-number'].join('|')));
      }
    }
  });

  it('refuses oversized bodies (200, success false) and unknown API paths with 404, both in the envelope', async () => {
    const big = JSON.stringify({ key: 'Notice', value: 'x'.repeat(1_200_000) });
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/option/',
      headers: { cookie: root.cookie, 'new-api-user': String(root.userId), 'content-type': 'application/json' },
      payload: big,
    });
    expectRefused(res);
    expect(res.json()).toMatchObject({ success: false, message: 'request body is too large' });
    const missing = await t.app.inject({ method: 'GET', url: '/api/does-not-exist' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().success).toBe(false);
  });

  it('never answers 5xx to random JSON bodies', async () => {
    const samples: unknown[] = [
      null,
      0,
      -1,
      1e308,
      '',
      'x'.repeat(500),
      true,
      [],
      {},
      { id: -5 },
      { id: 1.5 },
      { username: '' },
      { username: 'a'.repeat(300) },
      { key: '', value: null },
    ];
    for (const def of t.router.routes.filter((r) => r.body && !(r.method === 'DELETE'))) {
      for (const s of samples) {
        const res = await send(def, JSON.stringify(s));
        expect(res.statusCode, `${def.method} ${def.url} ${JSON.stringify(s).slice(0, 40)}`).toBeLessThan(500);
      }
    }
  });
});
