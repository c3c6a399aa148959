import { ChannelType, createChannelBody, updateChannelBody } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { useServiceContext } from '../support/service-context.js';

const t = useServiceContext();
const channels = () => t.ctx.channels;
const KEY = 'sk-service-tier-key-0123456789';
const body = (channel: Record<string, unknown>, mode = 'single', extra: Record<string, unknown> = {}) =>
  createChannelBody.parse({ mode, ...extra, channel: { name: 'ch', key: KEY, models: 'm1', ...channel } });

describe('channel rules', () => {
  it('creates a channel with its abilities: the routing table serves its models to its groups', async () => {
    const [id] = await channels().create(
      body({ name: 'routed', models: 'svc-model-a, svc-model-b', group: 'default,vip' }),
    );
    const row = await channels().get(id!);
    expect(row).toMatchObject({ name: 'routed', models: 'svc-model-a,svc-model-b', group: 'default,vip', key: KEY });
    expect(t.ctx.channelCache.modelsForGroup('vip')).toEqual(expect.arrayContaining(['svc-model-a', 'svc-model-b']));
  });

  it('checks each key against its type key format', async () => {
    const refused: [number, string, string][] = [
      [ChannelType.Baidu, 'only-one-part', 'needs the key format APIKey|SecretKey'],
      [ChannelType.Xunfei, 'a|b', 'APPID|APISecret|APIKey'],
      [ChannelType.FastGPT, 'nodash', 'APIKey-AppId'],
      [ChannelType.Tencent, 'a|b', 'AppId|SecretId|SecretKey'],
      [ChannelType.Aws, 'ak|sk', 'Ak|Sk|Region'],
      [ChannelType.VertexAi, 'not json', 'service account JSON key'],
    ];
    for (const [type, key, message] of refused)
      await expect(channels().create(body({ type, key })), `type ${type}`).rejects.toThrow(message);
    await expect(channels().create(body({ type: ChannelType.Aws, key: 'ak|sk|us-east-1' }))).resolves.toHaveLength(1);
    await expect(
      channels().create(body({ type: ChannelType.FastGPT, key: 'key-with-dash-appid' })),
    ).resolves.toHaveLength(1);
  });

  it('numbers the bad key of a batch', async () => {
    await expect(channels().create(body({ type: ChannelType.Baidu, key: 'a|b\nonly-one' }, 'batch'))).rejects.toThrow(
      'key (key 2): channel type 15 needs the key format',
    );
  });

  it('takes one key in single mode, one channel per key in batch mode, all keys in one multi-key channel', async () => {
    await expect(channels().create(body({ key: 'k-one-aaaaaaaa\nk-two-bbbbbbbb' }))).rejects.toThrow(
      /use batch or multi_to_single mode/,
    );
    expect(
      await channels().create(body({ key: 'k-one-aaaaaaaa\n\nk-two-bbbbbbbb,k-three-cccccc' }, 'batch')),
    ).toHaveLength(3);
    const [multi] = await channels().create(
      body({ key: 'k-one-aaaaaaaa\nk-one-aaaaaaaa\nk-two-bbbbbbbb' }, 'multi_to_single', { multi_key_mode: 'polling' }),
    );
    const row = await channels().get(multi!);
    expect(row.key).toBe('k-one-aaaaaaaa\nk-two-bbbbbbbb');
    expect(JSON.parse(row.channel_info)).toMatchObject({
      is_multi_key: true,
      multi_key_size: 2,
      multi_key_mode: 'polling',
    });
    await expect(channels().create(body({ type: ChannelType.VertexAi, key: '{}' }, 'multi_to_single'))).rejects.toThrow(
      /not available for channel type 41/,
    );
    await expect(channels().create(body({ key: ',\n,' }, 'batch'))).rejects.toThrow(/please fill in at least one key/);
  });

  it('refuses a model mapping that cycles or maps to a non-name', async () => {
    await expect(channels().create(body({ model_mapping: '{"a":"b","b":"a"}' }))).rejects.toThrow(/cycle/);
    await expect(channels().create(body({ model_mapping: '{"a":1}' }))).rejects.toThrow(/must be a model name/);
    await expect(channels().create(body({ model_mapping: '{"a":"b"}' }))).resolves.toHaveLength(1);
  });

  it('defaults Spark other to v2.1 and checks the Vertex region text', async () => {
    const [spark] = await channels().create(body({ type: ChannelType.Xunfei, key: 'app|secret|key' }));
    expect((await channels().get(spark!)).other).toBe('v2.1');
    await expect(
      channels().create(body({ type: ChannelType.VertexAi, key: '{}', other: '{not json' })),
    ).rejects.toThrow(/region must be plain text or a valid JSON object/);
  });

  it('keeps the key on an update without one and forgets a removed channel', async () => {
    const [id] = await channels().create(body({ name: 'kept', models: 'svc-model-kept' }));
    await channels().update(updateChannelBody.parse({ id, key: '', name: 'renamed', models: 'svc-model-new' }));
    expect(await channels().get(id!)).toMatchObject({ name: 'renamed', key: KEY, models: 'svc-model-new' });
    expect(t.ctx.channelCache.modelsForGroup('default')).not.toContain('svc-model-kept');
    await channels().remove(id!);
    await expect(channels().get(id!)).rejects.toThrow(/channel not found/);
    expect(t.ctx.channelCache.modelsForGroup('default')).not.toContain('svc-model-new');
  });
});
