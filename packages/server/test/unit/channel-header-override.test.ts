import { describe, expect, it } from 'vitest';
import { callSettingsOf, dropDisabledFields, settingsProblem } from '../../src/core/routing/channel-settings.js';
import { parseHeaderOverride, readHeaderOverride } from '../../src/core/routing/header-override.js';
import { withHeaderOverride } from '../../src/relay/upstream/header-override.js';

const channel = (override: Record<string, unknown>) => ({
  headerOverride: parseHeaderOverride(JSON.stringify(override)),
});

describe('header_override', () => {
  it('replaces an adaptor header written in another case and fills {api_key}', () => {
    const adaptor = { Authorization: 'Bearer sk-chan', 'content-type': 'application/json' };
    const out = withHeaderOverride(adaptor, channel({ authorization: 'Token {api_key}' }), 'sk-chan', undefined);
    expect(out).toEqual({ authorization: 'Token sk-chan', 'content-type': 'application/json' });
    // The adaptor's object is not changed.
    expect(adaptor.Authorization).toBe('Bearer sk-chan');
  });

  it('passes matching caller headers but never credentials, hop-by-hop headers or content-type', () => {
    const client = {
      authorization: 'Bearer sk-tollway-token',
      'x-api-key': 'sk-tollway-token',
      cookie: 'session=1',
      'content-type': 'text/plain',
      connection: 'close',
      'sec-websocket-protocol': 'realtime, openai-insecure-api-key.sk-tollway-token',
      'x-pass-a': 'a',
      'x-keep': 'k',
    };
    const all = withHeaderOverride({}, channel({ '*': '' }), 'sk-chan', client);
    expect(all).toEqual({ 'x-pass-a': 'a', 'x-keep': 'k' });
    const some = withHeaderOverride({}, channel({ 'regex:^X-PASS-': '', 'x-keep': 'mine' }), 'sk-chan', client);
    expect(some).toEqual({ 'x-pass-a': 'a', 'x-keep': 'mine' });
  });

  it('leaves out a key that is not one line, and client placeholders without a caller', () => {
    const o = channel({ 'x-key': '{api_key}', 'x-tag': '{client_header:x-tag}' });
    expect(withHeaderOverride({}, o, '{\n"type": "service_account"\n}', undefined)).toEqual({});
    expect(withHeaderOverride({}, o, 'k1', { 'x-tag': 't' })).toEqual({ 'x-key': 'k1', 'x-tag': 't' });
  });

  it('a stored row that breaks a rule (an import) keeps its other entries; saving it is refused', () => {
    const row = { Host: 'evil', Authorization: 'Bearer literal', 'X-Ok': 'yes' };
    expect(parseHeaderOverride(JSON.stringify(row))?.entries.map((e) => e.name)).toEqual(['x-ok']);
    expect(readHeaderOverride(row, true)).toEqual({ kind: 'forbidden', header: 'host' });
    expect(readHeaderOverride({ 'x-p': '{client_header:Sec-WebSocket-Protocol}' }, true)).toEqual({
      kind: 'credential',
      header: 'x-p',
    });
    expect(parseHeaderOverride('')).toBeUndefined();
    expect(parseHeaderOverride('{"X-Empty": "  "}')).toBeUndefined();
  });
});

describe('settings (new-api other settings)', () => {
  it('drops the fields a channel does not allow, before anything else is sent', () => {
    const body: Record<string, unknown> = {
      service_tier: 'flex',
      speed: 'fast',
      store: true,
      stream_options: { include_usage: true, include_obfuscation: false },
    };
    const nested = body.stream_options;
    expect(dropDisabledFields(body, callSettingsOf({}, false))).toBe(true);
    expect(body).toEqual({ store: true, stream_options: { include_usage: true } });
    // The caller's nested object is copied, not changed.
    expect(nested).toEqual({ include_usage: true, include_obfuscation: false });
    const allowed = callSettingsOf({ allow_speed: true, allow_include_obfuscation: true, disable_store: true }, false);
    const b2: Record<string, unknown> = { speed: 'fast', store: true, stream_options: { include_obfuscation: true } };
    dropDisabledFields(b2, allowed);
    expect(b2).toEqual({ speed: 'fast', stream_options: { include_obfuscation: true } });
    const passThrough = callSettingsOf({ claude_beta_query: true }, true);
    expect(passThrough).toEqual({ dropFields: [], dropObfuscation: false, claudeBetaQuery: true });
    expect(dropDisabledFields({ service_tier: 'flex' }, passThrough)).toBe(false);
  });

  it('knows the keys Tollway refuses and lets unknown ones through', () => {
    expect(settingsProblem({ some_future_key: 'x', upstream_model_update_last_check_time: 5 })).toBeUndefined();
    expect(settingsProblem({ upstream_model_update_ignored_models: [1] })).toEqual({
      kind: 'invalid',
      setting: 'upstream_model_update_ignored_models',
    });
    expect(settingsProblem({ vertex_key_type: 'json', aws_key_type: 'ak_sk', openrouter_enterprise: false })).toBe(
      undefined,
    );
    expect(settingsProblem({ aws_key_type: 'api_key' })).toEqual({ kind: 'unsupported', setting: 'aws_key_type' });
  });
});
