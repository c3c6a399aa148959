// The relay's bad-input sweeps (relay-bad-input, relay-bad-input-tasks): hostile values and the sweep over routes.

/** `depth` arrays nested in each other, as JSON text. */
export const nestedText = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** A placeholder value that `bodyText` turns into 5,000 nested arrays. */
export const DEEP = '__deep__';

/** Values no field of a relay body accepts in that place (or, for limits, at all). */
export const hostileValues: unknown[] = [
  [null],
  [null, null],
  'x'.repeat(200_000),
  -1000,
  '-Infinity',
  1.5,
  1e300,
  -0.5,
  true,
  { a: { b: { c: [] } } },
  [[[[]]]],
  DEEP,
];

/**
 * Message lists each protocol's vendor refuses with a 400 (null or missing content, content parts without a type
 * or with a null text, roles the protocol has not, no message at all): each must be the gateway's 400 too, never
 * served by converting it into something another upstream accepts.
 */
export const malformedMessages = {
  openaiChat: [
    [{ role: 'user', content: null }],
    [{ role: 'user' }],
    [
      { role: 'system', content: null },
      { role: 'user', content: 'hi' },
    ],
    [{ role: 'user', content: [{ type: 'text', text: null }] }],
    [{ role: 'user', content: [{ type: 'text' }] }],
    [{ role: 'user', content: [{ text: 'hi' }] }],
    [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null },
    ],
    [{ role: 'tool', tool_call_id: 'call_1', content: null }],
    [],
  ],
  anthropic: [
    [{ role: 'user', content: null }],
    [{ role: 'user' }],
    [{ role: 'user', content: ['hi'] }],
    [{ role: 'user', content: [null] }],
    [{ role: 'user', content: [{ type: 'text', text: null }] }],
    [{ role: 'user', content: [{ type: 'text' }] }],
    [{ role: 'user', content: [{ text: 'hi' }] }],
    [{ role: 'system', content: 'hi' }],
    [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null },
    ],
    [],
  ],
  responses: [
    [{ role: 'user', content: null }],
    [{ type: 'message', role: 'user', content: null }],
    [{ role: 'user' }],
    [{ role: 'user', content: [{ type: 'input_text', text: null }] }],
    [{ role: 'user', content: [{ text: 'hi' }] }],
  ],
  gemini: [
    [{ role: 'user', parts: [] }],
    [{ role: 'user', parts: [{}] }],
    [{ role: 'user', parts: [{ text: null }] }],
    [{ role: 'user', parts: [{ text: 42 }] }],
    [
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: null }] },
    ],
  ],
};

/** The message fields of a route and the malformed lists swept through each (none for routes without messages). */
export function malformedMessageFields(route: {
  path: string;
  protocol: string;
  fields: string[];
}): { field: string; values: unknown[] }[] {
  if (route.path === '/v1/responses') return [{ field: 'input', values: malformedMessages.responses }];
  if (route.protocol === 'anthropic') return [{ field: 'messages', values: malformedMessages.anthropic }];
  if (route.protocol === 'gemini')
    return route.fields
      .filter((f) => f.endsWith('contents'))
      .map((field) => ({ field, values: malformedMessages.gemini }));
  if (route.fields.includes('messages')) return [{ field: 'messages', values: malformedMessages.openaiChat }];
  return [];
}

/** The body text: DEEP becomes 5,000 nested arrays. */
export const bodyText = (body: Record<string, unknown>): string =>
  JSON.stringify(body).replace(`"${DEEP}"`, nestedText(5000));

/** One protocol's routes and how to send to them and judge the answers. */
export interface HostileSweep<R extends { path: string; label?: string; fields: string[] }, A> {
  routes: R[];
  brokenBodies: string[];
  /** Values of the hostile list that a field does accept (left out). */
  accepted(route: R, field: string, value: unknown): boolean;
  /** The route's valid body with `field` set to `value`, as text. */
  bodyWith(route: R, field: string, value: unknown): string;
  send(route: R, body: string): Promise<A>;
  /** Values swept through some fields besides the hostile list (malformed messages); each must be refused. */
  malformed?(route: R): { field: string; values: unknown[] }[];
  /** Adds a line to `failures` unless the answer is the route's refusal. */
  expectRefusal(label: string, route: R, answer: A, failures: string[]): void;
}

/**
 * Sends every broken body, every hostile value in every field and every malformed value of a route's own, to every
 * route: the failures and how many were sent.
 */
export async function sweepHostileBodies<R extends { path: string; label?: string; fields: string[] }, A>(
  s: HostileSweep<R, A>,
): Promise<{ failures: string[]; sent: number }> {
  const failures: string[] = [];
  let sent = 0;
  for (const route of s.routes) {
    const name = route.label ?? route.path;
    for (const body of s.brokenBodies) {
      s.expectRefusal(`${name} body ${body.slice(0, 30)}`, route, await s.send(route, body), failures);
      sent++;
    }
    for (const field of route.fields) {
      for (const value of hostileValues) {
        if (s.accepted(route, field, value)) continue;
        s.expectRefusal(
          `${name} ${field}=${JSON.stringify(value).slice(0, 30)}`,
          route,
          await s.send(route, s.bodyWith(route, field, value)),
          failures,
        );
        sent++;
      }
    }
    for (const { field, values } of s.malformed?.(route) ?? []) {
      for (const value of values) {
        s.expectRefusal(
          `${name} ${field}=${JSON.stringify(value).slice(0, 60)}`,
          route,
          await s.send(route, s.bodyWith(route, field, value)),
          failures,
        );
        sent++;
      }
    }
  }
  return { failures, sent };
}
