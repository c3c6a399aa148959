import { crc32 } from 'node:zlib';

/**
 * Builds one AWS event-stream message (what Bedrock's streaming answers are made of): total length, headers
 * length, prelude CRC32, string-typed headers (type 7), payload, message CRC32.
 */
export function eventStreamMessage(headers: Record<string, string>, payload: Buffer | string): Buffer {
  const head = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const n = Buffer.from(name, 'utf8');
      const v = Buffer.from(value, 'utf8');
      const b = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
      b.writeUInt8(n.length, 0);
      n.copy(b, 1);
      b.writeUInt8(7, 1 + n.length);
      b.writeUInt16BE(v.length, 2 + n.length);
      v.copy(b, 4 + n.length);
      return b;
    }),
  );
  const body = Buffer.from(payload);
  const total = 12 + head.length + body.length + 4;
  const msg = Buffer.alloc(total);
  msg.writeUInt32BE(total, 0);
  msg.writeUInt32BE(head.length, 4);
  msg.writeUInt32BE(crc32(msg.subarray(0, 8)), 8);
  head.copy(msg, 12);
  body.copy(msg, 12 + head.length);
  msg.writeUInt32BE(crc32(msg.subarray(0, total - 4)), total - 4);
  return msg;
}

/** A Bedrock `chunk` event carrying one Anthropic stream event. */
export const bedrockChunk = (event: unknown): Buffer =>
  eventStreamMessage(
    { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: 'abcdefghij' }),
  );

/** A Bedrock exception message (e.g. throttlingException mid-stream). */
export const bedrockException = (type: string, message: string): Buffer =>
  eventStreamMessage(
    { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    JSON.stringify({ message }),
  );

/** A Bedrock ConverseStream event (messageStart, contentBlockDelta, messageStop, metadata, …). */
export const converseEvent = (name: string, body: unknown): Buffer =>
  eventStreamMessage(
    { ':event-type': name, ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify(body),
  );
