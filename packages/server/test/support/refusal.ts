import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { CallResult } from './app.js';

type Answer = Pick<CallResult, 'status' | 'body'> | LightMyRequestResponse;

/**
 * new-api's convention on /api: a refusal (invalid input, not found, conflict, a rule of the route) is HTTP 200
 * with `success: false` and the reason; `message`, when given, must be contained in it.
 */
export function expectRefused(res: Answer, label?: string, message?: string): void {
  const raw = 'statusCode' in res;
  const status = raw ? res.statusCode : res.status;
  const body = (raw ? res.json() : res.body) as { success: boolean; message: string };
  expect(status, `${label ?? ''} ${body.message}`).toBe(200);
  expect(body.success, label).toBe(false);
  expect(typeof body.message, label).toBe('string');
  expect(body.message.length, label).toBeGreaterThan(0);
  if (message !== undefined) expect(body.message, label).toContain(message);
}
