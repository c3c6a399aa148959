import { describe, expect, it } from 'vitest';
import { OptionsService } from '../../src/core/options/service.js';
import type { OptionsStore } from '../../src/core/options/store.js';
import type { SecretBox } from '../../src/lib/secret-box.js';
import { RelaySettingsCache } from '../../src/relay/pipeline/settings.js';

/** An options service over a store that keeps nothing (set() applies and notifies as in production). */
function options(): OptionsService {
  const store = { all: async () => [], upsert: async () => undefined } as unknown as OptionsStore;
  const box = { seal: (v: string) => v, open: (v: string) => v } as unknown as SecretBox;
  return new OptionsService(store, box);
}

describe('relay settings snapshot', () => {
  it('is built once and reused until an option changes, then read again', async () => {
    const o = options();
    const cache = new RelaySettingsCache(o);
    const first = cache.get();
    expect(cache.get()).toBe(first);
    expect(first.logContent).toBe(false);

    await o.set('LogConsumeEnabled', 'true');
    await o.set('LogChatContentEnabled', 'true');
    await o.set('RetryTimes', '2');
    const next = cache.get();
    expect(next).not.toBe(first);
    expect(next.logContent).toBe(true);
    expect(next.retry.attempts).toBe(3);
  });

  it('exempts only the configured group from the prompt check, and only when the exemption is on', async () => {
    const o = options();
    const cache = new RelaySettingsCache(o);
    await o.set('global.safe_check_exempt_group', 'vip');
    expect(cache.get().exemptGroup).toBeUndefined();
    await o.set('global.safe_check_exempt_enabled', 'true');
    expect(cache.get().exemptGroup).toBe('vip');
  });
});
