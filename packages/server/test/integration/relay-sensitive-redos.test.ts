import { ErrorCode } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';

/** A prompt that makes `(\w+\s?)+!` backtrack exponentially in a backtracking engine: 27 characters, no "!". */
const POISON_PROMPT = 'a'.repeat(27);
/** What a call with a linear-time check of 27 characters may take on a loaded machine; backtracking took 3-28 s. */
const CHECK_BUDGET_MS = 1000;

/**
 * Administrator patterns run only in the linear-time engine (issue 31, hole 10): a pattern that stalls a
 * backtracking engine costs nothing, and one the engine cannot run is refused when saved.
 */
describe('SensitiveWords patterns in the linear-time engine', () => {
  let root: Client, base: string, key: string;
  useGateway('sqlite', { user: 'redos-user', quota: 5_000_000 }, async (gw) => {
    ({ root, base, key } = gw);
    await addChannel(root, { name: 'redos', key: 'redos-key', baseUrl: gw.mock.url, models: 'gpt-4o-mini' });
    for (const [k, value] of [
      ['CheckSensitiveEnabled', 'true'],
      ['CheckSensitiveOnPromptEnabled', 'true'],
    ])
      await root.call('PUT', '/api/option/', { key: k, value });
  });

  const chat = async (content: string) => {
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
    });
    return { status: res.status, body: (await res.json()) as { error?: { message: string } } };
  };

  it('checks a prompt against a catastrophic-backtracking pattern in linear time (hole 10)', async () => {
    const saved = await root.call('PUT', '/api/option/', { key: 'SensitiveWords', value: 'regex:(\\w+\\s?)+!' });
    expect(saved.body.success, saved.body.message).toBe(true);
    // A first call warms the relay (and compiles the list), so the measured one times the check.
    expect((await chat('hi')).status).toBe(200);
    // The event loop stays free: a timer due in 20 ms fires while the check runs, not seconds later.
    let timerLate = Infinity;
    const armed = Date.now();
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerLate = Date.now() - armed - 20;
        resolve();
      }, 20),
    );
    const started = Date.now();
    const res = await chat(POISON_PROMPT);
    const took = Date.now() - started;
    await timer;
    expect(res.status).toBe(200);
    expect(took).toBeLessThan(CHECK_BUDGET_MS);
    expect(timerLate).toBeLessThan(CHECK_BUDGET_MS);
    // The pattern still works where it matches.
    const hit = await chat('well hello there!');
    expect(hit.status).toBe(400);
    expect(hit.body.error!.message).toBe('sensitive words detected: well hello there!');
  });

  it('refuses, when saved, a pattern the linear-time engine cannot run, naming the line and the reason', async () => {
    for (const value of ['fine\nregex:(?=admin)adm', 'fine\nregex:(a)\\1', 'fine\nregex:(?<!x)y']) {
      const res = await root.call<unknown>('PUT', '/api/option/', { key: 'SensitiveWords', value });
      expect(res.body.success, value).toBe(false);
      expect(res.body.message, value).toMatch(
        /^SensitiveWords line 2: not supported by the linear-time pattern engine: /,
      );
      expect((res.body as { code?: string }).code ?? ErrorCode.SensitiveRegexInvalid).toBe(
        ErrorCode.SensitiveRegexInvalid,
      );
    }
    // Plain words with regex characters are literal text and always accepted.
    expect((await root.call('PUT', '/api/option/', { key: 'SensitiveWords', value: '(a+)+\nc++' })).body.success).toBe(
      true,
    );
    expect((await chat('say (a+)+ now')).status).toBe(400);
    expect((await chat('aaaa')).status).toBe(200);
  });
});
