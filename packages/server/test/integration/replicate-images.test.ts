import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import type { TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, userQuota } from '../support/gateway.js';
import {
  MOCK_REPLICATE_IMAGE,
  MOCK_REPLICATE_KEY,
  startMockReplicate,
  type MockReplicate,
} from '../support/mock-replicate.js';

const PER_UNIT = 500_000;
const SCHNELL = 'black-forest-labs/flux-schnell';
const PRO = 'black-forest-labs/flux-1.1-pro';
/** A small PNG (its signature and some bytes), with a byte that is not UTF-8. */
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from([0xff, 0xfe]), Buffer.from('mock day')]);
const PRICES = { [SCHNELL]: 0.003, [PRO]: 0.04, 'flux-badkey': 0.01 };

/**
 * Replicate as new-api serves it: `/v1/images/generations` (through the openai SDK) becomes a prediction of the
 * model (`Prefer: wait`), polled while it runs, answered as image URLs; billed per image at the model's price;
 * a failed or refused prediction and a channel key Replicate refuses cost nothing.
 */
describe.each(dialects)('Replicate image generation on %s', (dialect) => {
  const gw = useGateway<MockReplicate>(
    dialect,
    { user: 'replicate-user', quota: 5_000_000, mock: startMockReplicate },
    async (g) => {
      await addChannel(g.root, {
        name: 'replicate',
        type: ChannelType.Replicate,
        key: MOCK_REPLICATE_KEY,
        baseUrl: g.mock.url,
        models: `${SCHNELL},${PRO}`,
      });
      await addChannel(g.root, {
        name: 'replicate-bad',
        type: ChannelType.Replicate,
        key: 'r8_not_a_token',
        baseUrl: g.mock.url,
        models: 'flux-badkey',
        modelMapping: { 'flux-badkey': SCHNELL },
      });
      await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(PRICES) });
    },
  );
  const t = (): TestApp => gw.t;
  const client = () => new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
  const quota = () => userQuota(t(), gw.user.userId!);

  it('generates n images through a prediction: the input mapped as new-api maps it, charged per image', async () => {
    const before = await quota();
    const res = await client().images.generate({
      model: SCHNELL,
      prompt: 'a lighthouse in fog',
      n: 2,
      size: '1024x1792',
      quality: 'hd',
    });
    expect(res.data!.map((d) => d.url)).toEqual([
      expect.stringMatching(new RegExp(`^${gw.mock.url}/delivery/[0-9a-f]+/out-0\\.webp$`)),
      expect.stringMatching(/\/out-1\.webp$/),
    ]);
    expect(gw.mock.submits.at(-1)).toEqual({
      path: `/v1/models/${SCHNELL}/predictions`,
      prefer: 'wait',
      body: { input: { prompt: 'a lighthouse in fog', aspect_ratio: '9:16', num_outputs: 2, prompt_upsampling: true } },
    });
    expect(before - (await quota())).toBe(2 * PRICES[SCHNELL] * PER_UNIT);
    // A model answering one URL string; a size outside FLUX's named ratios is sent as custom dimensions.
    const pro = await client().images.generate({ model: PRO, prompt: 'a red door', size: '1000x700' });
    expect(pro.data).toEqual([{ url: expect.stringMatching(/\/out-0\.webp$/) }]);
    expect(gw.mock.submits.at(-1)!.body.input).toEqual({
      prompt: 'a red door',
      aspect_ratio: 'custom',
      width: 992,
      height: 704,
    });
    expect(before - (await quota())).toBe((2 * PRICES[SCHNELL] + PRICES[PRO]) * PER_UNIT);
  });

  it('a prediction still running after the wait is polled at /v1/predictions/{id} until it succeeds', async () => {
    const polls = gw.mock.polls;
    const before = await quota();
    const res = await client().images.generate({ model: SCHNELL, prompt: 'a slow sunrise' });
    expect(res.data).toHaveLength(1);
    expect(gw.mock.polls - polls).toBe(2);
    expect(before - (await quota())).toBe(PRICES[SCHNELL] * PER_UNIT);
  });

  it('a failed or refused prediction and a key Replicate refuses: an error, nothing charged', async () => {
    const before = await quota();
    await expect(client().images.generate({ model: SCHNELL, prompt: 'this will fail' })).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('NSFW'),
    });
    await expect(client().images.generate({ model: SCHNELL, prompt: 'refuse me' })).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('flagged'),
    });
    const badAuth = gw.mock.badAuth;
    await expect(client().images.generate({ model: 'flux-badkey', prompt: 'a cat' })).rejects.toMatchObject({
      status: 401,
    });
    expect(gw.mock.badAuth).toBe(badAuth + 1);
    expect(await quota()).toBe(before);
    const wrongCaller = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${gw.base}/v1`, maxRetries: 0 });
    await expect(wrongCaller.images.generate({ model: SCHNELL, prompt: 'x' })).rejects.toMatchObject({ status: 401 });
  });

  it('b64_json: the output images are downloaded through the SSRF guard (a private address refused, uncharged)', async () => {
    const before = await quota();
    const downloads = gw.mock.downloads;
    // The mock's image URLs are on 127.0.0.1, which the default fetch settings refuse.
    await expect(
      client().images.generate({ model: SCHNELL, prompt: 'as base64', response_format: 'b64_json' }),
    ).rejects.toMatchObject({ status: 502, message: expect.stringContaining('fetch settings') });
    expect(gw.mock.downloads).toBe(downloads);
    expect(await quota()).toBe(before);
    const option = (key: string, value: string) => gw.root.call('PUT', '/api/option/', { key, value });
    const ports = (await gw.root.call<{ key: string; value: string }[]>('GET', '/api/option/')).body.data!.find(
      (o) => o.key === 'fetch_setting.allowed_ports',
    )!.value;
    await option('fetch_setting.allow_private_ip', 'true');
    await option('fetch_setting.allowed_ports', JSON.stringify([new URL(gw.mock.url).port]));
    try {
      const res = await client().images.generate({
        model: SCHNELL,
        prompt: 'as base64',
        n: 2,
        response_format: 'b64_json',
      });
      expect(res.data!.map((d) => Buffer.from(d.b64_json!, 'base64'))).toEqual([
        MOCK_REPLICATE_IMAGE,
        MOCK_REPLICATE_IMAGE,
      ]);
      expect(res.data!.every((d) => d.url === undefined)).toBe(true);
      expect(gw.mock.downloads).toBe(downloads + 2);
      expect(before - (await quota())).toBe(2 * PRICES[SCHNELL] * PER_UNIT);
    } finally {
      await option('fetch_setting.allow_private_ip', 'false');
      await option('fetch_setting.allowed_ports', ports);
    }
  });

  it('an edit uploads its image to the files API and passes its URL as image_prompt; charged per image', async () => {
    const before = await quota();
    const res = await client().images.edit({
      model: PRO,
      prompt: 'make it night',
      image: await toFile(PNG, 'day.png', { type: 'image/png' }),
    });
    expect(res.data).toEqual([{ url: expect.stringMatching(/\/out-0\.webp$/) }]);
    const file = gw.mock.files.at(-1)!;
    expect(file).toMatchObject({ name: 'day.png', type: 'image/png' });
    expect(Buffer.compare(file.bytes, PNG)).toBe(0);
    expect(gw.mock.submits.at(-1)).toMatchObject({
      path: `/v1/models/${PRO}/predictions`,
      body: { input: { prompt: 'make it night', image_prompt: `${gw.mock.url}/v1/files/${file.id}` } },
    });
    expect(before - (await quota())).toBe(PRICES[PRO] * PER_UNIT);
  });

  it('the pricing page lists Replicate models as image generation', async () => {
    const res = await gw.user.call<{ model_name: string; supported_endpoint_types: string[] }[]>('GET', '/api/pricing');
    const flux = res.body.data!.find((m) => m.model_name === SCHNELL);
    expect(flux).toMatchObject({ supported_endpoint_types: ['image-generation'], model_price: PRICES[SCHNELL] });
  });

  it('a chat call on a Replicate channel is refused without reaching Replicate', async () => {
    const submits = gw.mock.submits.length;
    const err = await client()
      .chat.completions.create({ model: SCHNELL, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (e: { status: number; message: string }) => e,
      );
    expect(err).toMatchObject({ status: 501, message: expect.stringContaining('image generation') });
    expect(gw.mock.submits.length).toBe(submits);
  });
});
