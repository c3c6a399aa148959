import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BedrockStreamFramer } from '../../src/relay/providers/aws/bedrock-stream.js';
import { EventStreamDecoder, EventStreamError } from '../../src/relay/providers/aws/event-stream.js';
import { bedrockChunk, bedrockException, eventStreamMessage } from '../support/aws-event-stream.js';

/** One message laid out byte by byte: header ":event-type" = "chunk" (type 7), payload {"bytes":"aGk="}. */
function handFrame(): Buffer {
  const name = Buffer.from(':event-type');
  const value = Buffer.from('chunk');
  const headers = Buffer.concat([Buffer.from([name.length]), name, Buffer.from([7, 0, value.length]), value]);
  const payload = Buffer.from('{"bytes":"aGk="}');
  const total = 4 + 4 + 4 + headers.length + payload.length + 4;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headers.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude), 0);
  const withoutCrc = Buffer.concat([prelude, preludeCrc, headers, payload]);
  const messageCrc = Buffer.alloc(4);
  messageCrc.writeUInt32BE(crc32(withoutCrc), 0);
  return Buffer.concat([withoutCrc, messageCrc]);
}

describe('AWS event stream decoder', () => {
  it('decodes a hand-built frame (lengths and both CRC32s) and the test builder makes the same bytes', () => {
    const frame = handFrame();
    // prelude 12, header 1 + 11 + 1 + 2 + 5, payload 16, CRC 4
    expect(frame.length).toBe(12 + 20 + 16 + 4);
    expect(frame.readUInt32BE(0)).toBe(frame.length);
    expect(eventStreamMessage({ ':event-type': 'chunk' }, '{"bytes":"aGk="}').equals(frame)).toBe(true);
    const [m, ...rest] = new EventStreamDecoder().push(frame);
    expect(rest).toEqual([]);
    expect(m!.headers).toEqual({ ':event-type': 'chunk' });
    expect(m!.payload.toString()).toBe('{"bytes":"aGk="}');
  });

  it('gives the same message whatever byte boundary splits the frame', () => {
    const frame = handFrame();
    for (let i = 1; i < frame.length; i++) {
      const d = new EventStreamDecoder();
      expect(d.push(frame.subarray(0, i))).toEqual([]);
      expect(d.partial).toBe(true);
      const out = d.push(frame.subarray(i));
      expect(out.length, `split at ${i}`).toBe(1);
      expect(out[0]!.payload.toString()).toBe('{"bytes":"aGk="}');
      expect(d.partial).toBe(false);
    }
  });

  it('decodes several frames fed one byte at a time, and several in one chunk', () => {
    const frames = Buffer.concat([handFrame(), bedrockChunk({ type: 'ping' }), handFrame()]);
    const d = new EventStreamDecoder();
    const got = [];
    for (let i = 0; i < frames.length; i++) got.push(...d.push(frames.subarray(i, i + 1)));
    expect(got.map((m) => m.headers[':event-type'])).toEqual(['chunk', 'chunk', 'chunk']);
    expect(got.map((m) => JSON.parse(m.payload.toString()).bytes)).toEqual([
      'aGk=',
      Buffer.from('{"type":"ping"}').toString('base64'),
      'aGk=',
    ]);
    expect(new EventStreamDecoder().push(frames).length).toBe(3);
  });

  it('refuses a corrupted prelude, a corrupted message and an absurd length', () => {
    const badPrelude = handFrame();
    badPrelude[9] ^= 0xff;
    expect(() => new EventStreamDecoder().push(badPrelude)).toThrow(EventStreamError);
    const badBody = handFrame();
    badBody[badBody.length - 6] ^= 0x01;
    expect(() => new EventStreamDecoder().push(badBody)).toThrow(/message CRC/);
    const huge = Buffer.alloc(12);
    huge.writeUInt32BE(0x7fffffff, 0);
    huge.writeUInt32BE(0, 4);
    huge.writeUInt32BE(crc32(huge.subarray(0, 8)), 8);
    expect(() => new EventStreamDecoder().push(huge)).toThrow(/out of range/);
  });
});

describe('Bedrock stream framer', () => {
  it('turns chunk events into the Anthropic SSE events they carry, split anywhere', () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo' } },
      { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 3 } },
    ];
    const bytes = Buffer.concat(events.map(bedrockChunk));
    for (const step of [1, 7, 64, bytes.length]) {
      const f = new BedrockStreamFramer();
      const out = [];
      for (let i = 0; i < bytes.length; i += step) out.push(...f.push(bytes.subarray(i, i + step)));
      expect(f.flush()).toEqual([]);
      expect(out.map((e) => e.event)).toEqual(['message_start', 'content_block_delta', 'message_stop']);
      expect(JSON.parse(out[1]!.data)).toEqual(events[1]);
    }
  });

  it('reports exceptions and a stream cut mid-message as Anthropic error events', () => {
    const f = new BedrockStreamFramer();
    const [err] = f.push(bedrockException('throttlingException', 'Too many requests'));
    expect(err!.event).toBe('error');
    expect(JSON.parse(err!.data)).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'throttlingException: Too many requests' },
    });
    const g = new BedrockStreamFramer();
    expect(g.push(bedrockChunk({ type: 'ping' }).subarray(0, 20))).toEqual([]);
    expect(g.flush()[0]!.event).toBe('error');
  });
});
