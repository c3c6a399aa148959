import { crc32 } from 'node:zlib';

/**
 * Incremental decoder of the AWS event stream (`application/vnd.amazon.eventstream`), written from AWS's
 * description of the framing. Each message: total length (u32 BE), headers length (u32 BE), CRC32 of those 8
 * bytes, headers, payload, CRC32 of everything before it. Headers: name length (u8), name, value type (u8),
 * value. Chunks may split a message anywhere; only the bytes of the message being read are kept.
 */

export type HeaderValue = string | number | bigint | boolean | Buffer;

export interface EventStreamMessage {
  headers: Record<string, HeaderValue>;
  payload: Buffer;
}

const PRELUDE = 12;
const MIN_MESSAGE = 16;
/** Larger messages are refused (AWS caps event payloads well below this). */
export const MAX_MESSAGE = 16 * 1024 * 1024;

export class EventStreamError extends Error {}

export class EventStreamDecoder {
  /** Received bytes not yet decoded, as received (joined only when a whole message is there). */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Total length of the message being read, once its prelude is in. */
  private expected = 0;

  push(chunk: Buffer): EventStreamMessage[] {
    if (chunk.length) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const out: EventStreamMessage[] = [];
    for (;;) {
      if (!this.expected) {
        if (this.buffered < PRELUDE) break;
        this.expected = this.readPrelude();
      }
      if (this.buffered < this.expected) break;
      out.push(decodeMessage(this.take(this.expected)));
      this.expected = 0;
    }
    return out;
  }

  /** True when the stream ended in the middle of a message. */
  get partial(): boolean {
    return this.buffered > 0;
  }

  private readPrelude(): number {
    const head = this.peek(PRELUDE);
    const total = head.readUInt32BE(0);
    if (crc32(head.subarray(0, 8)) !== head.readUInt32BE(8))
      throw new EventStreamError('event stream prelude CRC mismatch');
    if (total < MIN_MESSAGE || total > MAX_MESSAGE)
      throw new EventStreamError(`event stream message length ${total} out of range`);
    if (head.readUInt32BE(4) > total - MIN_MESSAGE)
      throw new EventStreamError('event stream headers longer than the message');
    return total;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return all.subarray(0, n);
  }
}

function decodeMessage(msg: Buffer): EventStreamMessage {
  const total = msg.length;
  if (crc32(msg.subarray(0, total - 4)) !== msg.readUInt32BE(total - 4))
    throw new EventStreamError('event stream message CRC mismatch');
  const headersEnd = PRELUDE + msg.readUInt32BE(4);
  return { headers: decodeHeaders(msg.subarray(PRELUDE, headersEnd)), payload: msg.subarray(headersEnd, total - 4) };
}

function decodeHeaders(b: Buffer): Record<string, HeaderValue> {
  const out: Record<string, HeaderValue> = {};
  let i = 0;
  const need = (n: number) => {
    if (i + n > b.length) throw new EventStreamError('event stream header truncated');
  };
  while (i < b.length) {
    need(1);
    const nameLen = b[i++]!;
    need(nameLen + 1);
    const name = b.toString('utf8', i, i + nameLen);
    i += nameLen;
    const type = b[i++]!;
    let value: HeaderValue;
    switch (type) {
      case 0:
      case 1:
        value = type === 0;
        break;
      case 2:
        need(1);
        value = b.readInt8(i);
        i += 1;
        break;
      case 3:
        need(2);
        value = b.readInt16BE(i);
        i += 2;
        break;
      case 4:
        need(4);
        value = b.readInt32BE(i);
        i += 4;
        break;
      case 5:
      case 8:
        need(8);
        value = b.readBigInt64BE(i);
        i += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const len = b.readUInt16BE(i);
        i += 2;
        need(len);
        value = type === 7 ? b.toString('utf8', i, i + len) : Buffer.from(b.subarray(i, i + len));
        i += len;
        break;
      }
      case 9:
        need(16);
        value = b.toString('hex', i, i + 16);
        i += 16;
        break;
      default:
        throw new EventStreamError(`event stream header ${name} has unknown type ${type}`);
    }
    out[name] = value;
  }
  return out;
}
