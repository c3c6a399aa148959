import { ChannelType, ErrorCode } from '@tollway/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSignInInput } from '../../src/modules/channels/codex-auth.js';
import { CODEX_SIGN_IN_TTL_MS, CODEX_SIGN_INS_PER_ADMIN, CodexOAuth } from '../../src/modules/channels/codex-oauth.js';
import { ApiError } from '../../src/lib/errors.js';

const REDIRECT = 'http://localhost:1455/auth/callback';

/** A service over channels that are all Codex channels; no call reaches a network before the state is checked. */
function service(): CodexOAuth {
  const ctx = {
    config: { codexOAuthBaseUrl: 'http://127.0.0.1:9' },
    channels: { get: async (id: number) => ({ id, type: ChannelType.Codex, key: '{}', name: `c${id}` }) },
    log: { warn: () => undefined },
  };
  return new CodexOAuth(ctx as never, undefined as never);
}

const stateOf = (url: string) => new URL(url).searchParams.get('state')!;
const codeOfError = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return (err as ApiError).detail.code;
};

describe('Codex sign-in input', () => {
  it('reads the redirected address, its query, and code#state; a bare code has no state', () => {
    expect(parseSignInInput(` ${REDIRECT}?code=ac-1&scope=x&state=s1 `)).toEqual({ code: 'ac-1', state: 's1' });
    expect(parseSignInInput('code=ac-2&state=s2')).toEqual({ code: 'ac-2', state: 's2' });
    expect(parseSignInInput('?code=ac-3&state=s3')).toEqual({ code: 'ac-3', state: 's3' });
    expect(parseSignInInput('ac-4#s4')).toEqual({ code: 'ac-4', state: 's4' });
    expect(parseSignInInput('ac-5')).toEqual({ code: 'ac-5', state: '' });
  });
});

describe('Codex pending sign-ins', () => {
  afterEach(() => vi.useRealTimers());

  it('keep the latest few per administrator, apart from other administrators', async () => {
    const s = service();
    const urls: string[] = [];
    for (let ch = 1; ch <= CODEX_SIGN_INS_PER_ADMIN + 1; ch++) urls.push((await s.start(1, ch)).authorize_url);
    const other = (await s.start(2, 1)).authorize_url;
    // Channel 1's sign-in was dropped for the newest; the others are pending (a wrong state says so).
    expect(await codeOfError(s.complete(1, 1, `${REDIRECT}?code=x&state=${stateOf(urls[0]!)}`))).toBe(
      ErrorCode.CodexSignInNotStarted,
    );
    expect(await codeOfError(s.complete(1, 2, `${REDIRECT}?code=x&state=wrong`))).toBe(
      ErrorCode.CodexSignInStateMismatch,
    );
    // Another administrator's state does not complete this one's sign-in.
    expect(await codeOfError(s.complete(1, 6, `${REDIRECT}?code=x&state=${stateOf(other)}`))).toBe(
      ErrorCode.CodexSignInStateMismatch,
    );
    expect(await codeOfError(s.complete(3, 1, `${REDIRECT}?code=x&state=${stateOf(other)}`))).toBe(
      ErrorCode.CodexSignInNotStarted,
    );
  });

  it('expire after their time to live', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const s = service();
    const url = (await s.start(1, 0)).authorize_url;
    vi.setSystemTime(Date.now() + CODEX_SIGN_IN_TTL_MS - 1000);
    expect(await codeOfError(s.complete(1, 0, `${REDIRECT}?code=x&state=wrong`))).toBe(
      ErrorCode.CodexSignInStateMismatch,
    );
    vi.setSystemTime(Date.now() + 2000);
    expect(await codeOfError(s.complete(1, 0, `${REDIRECT}?code=x&state=${stateOf(url)}`))).toBe(
      ErrorCode.CodexSignInNotStarted,
    );
  });
});
