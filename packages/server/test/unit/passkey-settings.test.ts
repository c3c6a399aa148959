import { ErrorCode, type OptionKey } from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { OptionReader } from '../../src/lib/option-reader.js';
import { relyingParty } from '../../src/modules/passkeys/settings.js';

/** Options as saved (strings), the rest at their empty defaults. */
function options(saved: Partial<Record<OptionKey, string>>): OptionReader {
  const get = (k: OptionKey) => saved[k] ?? (k === 'SystemName' ? 'Tollway' : '');
  return { get, bool: (k) => get(k) === 'true', num: (k) => Number(get(k)), json: (k) => JSON.parse(get(k)) };
}
const req = (protocol: string, host: string) => ({ protocol, host }) as FastifyRequest;
const codeOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return (err as { detail?: { code?: string } }).detail?.code;
  }
  return undefined;
};

describe('passkey relying party (passkey.* options and ServerAddress)', () => {
  const on = { 'passkey.enabled': 'true' } as const;

  it('is refused while passkeys are off', () => {
    expect(codeOf(() => relyingParty(options({}), req('https', 'gw.example.com')))).toBe(ErrorCode.PasskeyUnavailable);
  });

  it('takes the origin and RP id from ServerAddress, else from the request', () => {
    const rp = relyingParty(options({ ...on, ServerAddress: 'https://gw.example.com:8443/' }), req('http', 'x'));
    expect(rp).toMatchObject({ id: 'gw.example.com', origins: ['https://gw.example.com:8443'], name: 'Tollway' });
    expect(rp.userVerification).toBe('preferred');
    expect(relyingParty(options(on), req('https', 'edge.example.org'))).toMatchObject({
      id: 'edge.example.org',
      origins: ['https://edge.example.org'],
    });
  });

  it('takes passkey.origins and passkey.rp_id (scheme, port and path dropped) when set', () => {
    const rp = relyingParty(
      options({
        ...on,
        ServerAddress: 'https://ignored.example.com',
        'passkey.origins': 'https://a.example.com, https://b.example.com:444',
        'passkey.rp_id': 'https://example.com:443/x',
        'passkey.rp_display_name': 'Company AI',
        'passkey.user_verification': 'required',
        'passkey.attachment_preference': 'platform',
      }),
      req('http', 'x'),
    );
    expect(rp).toEqual({
      name: 'Company AI',
      id: 'example.com',
      origins: ['https://a.example.com', 'https://b.example.com:444'],
      userVerification: 'required',
      attachment: 'platform',
    });
  });

  it('refuses http origins other than the loopback unless insecure origins are allowed', () => {
    const http = { ...on, ServerAddress: 'http://gw.example.com' };
    expect(codeOf(() => relyingParty(options(http), req('http', 'x')))).toBe(ErrorCode.PasskeyInsecureOrigin);
    expect(
      relyingParty(options({ ...http, 'passkey.allow_insecure_origin': 'true' }), req('http', 'x')).origins,
    ).toEqual(['http://gw.example.com']);
    expect(relyingParty(options({ ...on, ServerAddress: 'http://localhost:3000' }), req('http', 'x')).id).toBe(
      'localhost',
    );
    expect(codeOf(() => relyingParty(options({ ...on, 'passkey.origins': 'ftp://x' }), req('http', 'x')))).toBe(
      ErrorCode.PasskeyOriginInvalid,
    );
  });
});
