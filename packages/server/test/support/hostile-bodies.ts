// The relay's bad-input sweeps (relay-bad-input, relay-bad-input-tasks): hostile values and the sweep over routes.

/** `depth` arrays nested in each other, as JSON text. */
export const nestedText = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** A placeholder value that `bodyText` turns into 5,000 nested arrays. */
export const DEEP = '__deep__';

/** Values no field of a relay body accepts in that place (or, for limits, at all). */
export const hostileValues: unknown[] = [[null], [null, null], 'x'.repeat(200_000), -1000, '-Infinity', 1.5, 1e300, -0.5, true, { a: { b: { c: [] } } }, [[[[]]]], DEEP];

/** The body text: DEEP becomes 5,000 nested arrays. */
export const bodyText = (body: Record<string, unknown>): string => JSON.stringify(body).replace(`"${DEEP}"`, nestedText(5000));

/** One protocol's routes and how to send to them and judge the answers. */
export interface HostileSweep<R extends { path: string; label?: string; fields: string[] }, A> {
  routes: R[];
  brokenBodies: string[];
  /** Values of the hostile list that a field does accept (left out). */
  accepted(route: R, field: string, value: unknown): boolean;
  /** The route's valid body with `field` set to `value`, as text. */
  bodyWith(route: R, field: string, value: unknown): string;
  send(route: R, body: string): Promise<A>;
  /** Adds a line to `failures` unless the answer is the route's refusal. */
  expectRefusal(label: string, route: R, answer: A, failures: string[]): void;
}

/** Sends every broken body, and every hostile value in every field, to every route: the failures and how many were sent. */
export async function sweepHostileBodies<R extends { path: string; label?: string; fields: string[] }, A>(s: HostileSweep<R, A>): Promise<{ failures: string[]; sent: number }> {
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
        s.expectRefusal(`${name} ${field}=${JSON.stringify(value).slice(0, 30)}`, route, await s.send(route, s.bodyWith(route, field, value)), failures);
        sent++;
      }
    }
  }
  return { failures, sent };
}
