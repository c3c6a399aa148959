import crypto from 'node:crypto';
import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { xunfeiAdaptor } from '../../../src/relay/providers/xunfei/adaptor.js';
import { sparkChat, sparkRequestFor } from '../../../src/relay/providers/xunfei/convert.js';
import { xunfeiProvider } from '../../../src/relay/providers/xunfei/descriptor.js';
import { sparkRoute, sparkSignedUrl } from '../../../src/relay/providers/xunfei/sign.js';
import type { SparkRequest } from '../../../src/relay/providers/xunfei/wire.js';
import { describeProviderContract } from '../../support/provider-contract.js';
import { startMockSpark } from '../../support/mock-spark.js';

const APP = { appId: 'a1b2c3d4', apiSecret: 'spark-secret', apiKey: 'spark-key' };

/**
 * iFlytek Spark over its WebSocket, against a mock that verifies the signed URL (HMAC-SHA256 of host, date and
 * request line with the app's API secret) and the frame's app id; plain calls are collected from the frames.
 */
describeProviderContract({
  descriptor: xunfeiProvider,
  type: ChannelType.Xunfei,
  model: 'SparkDesk-v3.5',
  key: `${APP.appId}|${APP.apiSecret}|${APP.apiKey}`,
  path: '/v3.5/chat',
  upstream: () => startMockSpark([APP]),
  behaviorKey: APP.apiKey,
  expectRequest(request) {
    expect(request.body).toEqual({
      header: { app_id: APP.appId },
      parameter: { chat: { domain: 'generalv3.5' } },
      payload: {
        message: {
          text: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hi' },
          ],
        },
      },
    });
  },
});

describe('iFlytek Spark wire', () => {
  it('routes a model to its socket path and domain', () => {
    expect(sparkRoute('SparkDesk-v3.5', '')).toEqual({ path: '/v3.5/chat', domain: 'generalv3.5' });
    expect(sparkRoute('SparkDesk-v4.0', '')).toEqual({ path: '/v4.0/chat', domain: '4.0Ultra' });
    expect(sparkRoute('SparkDesk', 'v3.1')).toEqual({ path: '/v3.1/chat', domain: 'generalv3' });
    expect(sparkRoute('SparkDesk', '')).toEqual({ path: '/v1.1/chat', domain: 'lite' });
    expect(sparkRoute('max-32k', '')).toEqual({ path: '/chat/max-32k', domain: 'max-32k' });
    expect(sparkRoute('SparkDesk-v9.9', '')).toEqual({ path: '/v9.9/chat', domain: 'generalv9.9' });
  });

  it('signs the URL as Spark documents it', () => {
    const date = 'Fri, 05 May 2023 10:43:39 GMT';
    const signed = sparkSignedUrl(new URL('wss://spark-api.xf-yun.com/v1.1/chat'), 'k', 's', date);
    const auth = Buffer.from(signed.searchParams.get('authorization')!, 'base64').toString('utf8');
    const signature = crypto
      .createHmac('sha256', 's')
      .update(`host: spark-api.xf-yun.com\ndate: ${date}\nGET /v1.1/chat HTTP/1.1`)
      .digest('base64');
    expect(auth).toBe(
      `api_key="k", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
    );
    expect(signed.searchParams.get('date')).toBe(date);
    expect(signed.searchParams.get('host')).toBe('spark-api.xf-yun.com');
    expect(signed.pathname).toBe('/v1.1/chat');
  });

  it('gives domains without a system role the system prompt as an acknowledged user turn', () => {
    const body = sparkChat.requestFromIR({
      model: 'SparkDesk',
      system: ['be brief'],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      stream: false,
      maxTokens: 64,
      temperature: 0.5,
    }) as SparkRequest;
    expect(sparkRequestFor(body, 'app', 'lite')).toEqual({
      header: { app_id: 'app' },
      parameter: { chat: { domain: 'lite', max_tokens: 64, temperature: 0.5 } },
      payload: {
        message: {
          text: [
            { role: 'user', content: 'be brief' },
            { role: 'assistant', content: 'OK.' },
            { role: 'user', content: 'hi' },
          ],
        },
      },
    });
  });

  it('reads an error frame as the stream failing', () => {
    const state = sparkChat.newDecodeState();
    const events = sparkChat.decodeEvent(state, {
      data: JSON.stringify({ header: { code: 10013, message: 'input is sensitive', sid: 's1', status: 2 } }),
    });
    expect(events).toEqual([
      { type: 'start', id: 's1', model: '' },
      { type: 'error', message: 'iFlytek Spark error 10013: input is sensitive' },
      { type: 'stop', reason: 'error' },
      { type: 'end' },
    ]);
  });

  it('refuses a key that is not APPID|APISecret|APIKey before connecting', () => {
    expect(() =>
      xunfeiAdaptor.prepare!({ key: 'only|two', model: 'SparkDesk', channel: { other: '' } } as never, {
        url: new URL('ws://127.0.0.1/v1.1/chat'),
        headers: {},
        body: {},
      }),
    ).toThrow('iFlytek Spark keys are written APPID|APISecret|APIKey');
  });
});
