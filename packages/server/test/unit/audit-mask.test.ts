import { describe, expect, it } from 'vitest';
import { isSecretOption, MASK, maskValue } from '../../src/modules/audit/mask.js';
import { defaultAction, defaultTarget, defaultTargetId } from '../../src/modules/audit/naming.js';

describe('audit detail masking', () => {
  it('masks secret-named fields at any depth and inside JSON text; an empty secret stays empty', () => {
    const masked = maskValue({
      name: 'east',
      key: 'k-123',
      password: '',
      channel: { api_key: 'abc', models: ['a', 'b'] },
      header_override: JSON.stringify({ Authorization: 'Bearer xyz', 'X-Trace': 'on' }),
      setting: JSON.stringify({
        webhook_secret: 'ws',
        webhook_url: 'https://hooks.example/T0/abc',
        notify_type: 'email',
      }),
    });
    expect(masked).toEqual({
      name: 'east',
      key: MASK,
      password: '',
      channel: { api_key: MASK, models: ['a', 'b'] },
      header_override: JSON.stringify({ Authorization: MASK, 'X-Trace': 'on' }),
      setting: JSON.stringify({ webhook_secret: MASK, webhook_url: MASK, notify_type: 'email' }),
    });
  });

  it('masks API keys and bearer credentials in any text, and cuts long values and lists', () => {
    expect(maskValue({ remark: 'old key sk-abcdefghijklmnop01 revoked', note: 'use Bearer tok_9 here' })).toEqual({
      remark: `old key ${MASK} revoked`,
      note: `use ${MASK} here`,
    });
    const long = maskValue('x'.repeat(1000)) as string;
    expect(long.length).toBeLessThanOrEqual(201);
    expect(maskValue(Array.from({ length: 25 }, (_, i) => i))).toEqual([
      ...Array.from({ length: 20 }, (_, i) => i),
      '…(+5)',
    ]);
  });

  it('knows the secret options (declared, and by name for new ones)', () => {
    for (const k of ['SMTPToken', 'GitHubClientSecret', 'oidc.client_secret', 'EpayKey', 'SomeFutureApiKey'])
      expect(isSecretOption(k), k).toBe(true);
    for (const k of ['Notice', 'LogRetentionDays', 'GroupRatio', 'ModelRatio'])
      expect(isSecretOption(k), k).toBe(false);
  });
});

describe('audit naming from the route declaration', () => {
  it('derives resource.verb and the target', () => {
    expect(defaultAction({ method: 'POST', url: '/api/channel/' })).toBe('channel.create');
    expect(defaultAction({ method: 'DELETE', url: '/api/redemption/delete-disabled' })).toBe(
      'redemption.delete_disabled',
    );
    expect(defaultAction({ method: 'PUT', url: '/api/redemption/batch-disable' })).toBe('redemption.batch_disable');
    expect(defaultAction({ method: 'DELETE', url: '/api/user/:id/2fa' })).toBe('user.delete_2fa');
    expect(defaultTarget('/api/admin/messages/:id')).toBe('message');
    expect(defaultTargetId({ params: { id: 7 }, query: {}, body: { id: 9 }, data: undefined })).toBe('7');
    expect(defaultTargetId({ params: {}, query: {}, body: { mode: 'single' }, data: { ids: [3, 4] } })).toBe('3,4');
    expect(defaultTargetId({ params: {}, query: {}, body: { ids: [5, 6] }, data: 2 })).toBe('5,6');
  });
});
