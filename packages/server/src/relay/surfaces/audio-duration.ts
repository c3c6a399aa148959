import fs from 'node:fs';

/**
 * The duration of an uploaded audio file, read from its headers the way a decoder reads them: WAV (`fmt ` and
 * `data` chunks), FLAC (STREAMINFO's sample count), MP4/M4A (the movie header), Ogg Opus/Vorbis (the last
 * page's granule position), MP3 (a Xing/Info or VBRI frame count, else the first frame's constant bit rate over
 * the audio's bytes). Undefined for other containers (WebM, AAC in ADTS) and for anything that does not parse.
 * A few small reads (the head, box headers, the tail); never the whole file.
 */

/** Bytes read from the start of the file: enough for the headers and an ID3v2 tag's usual size. */
const HEAD_BYTES = 64 * 1024;
/** How far past a tag the first MPEG frame is looked for. */
const MAX_SYNC_SEARCH = 4096;
/** How far a WAV file's chunks are followed looking for `data`. */
const MAX_WAV_CHUNKS = 64;

/** The bytes [start, start + length) of a file region, within it. */
function readAt(fd: number, start: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = fs.readSync(fd, buf, 0, length, start);
  return buf.subarray(0, n);
}

function wavSeconds(fd: number, start: number, size: number, head: Buffer): number | undefined {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE')
    return undefined;
  let bytesPerSecond = 0;
  let at = 12;
  for (let i = 0; i < MAX_WAV_CHUNKS && at + 8 <= size; i++) {
    const header = at + 8 <= head.length ? head.subarray(at, at + 24) : readAt(fd, start + at, 24);
    if (header.length < 8) return undefined;
    const id = header.toString('latin1', 0, 4);
    const length = header.readUInt32LE(4);
    if (id === 'fmt ' && header.length >= 24) {
      const channels = header.readUInt16LE(10);
      const rate = header.readUInt32LE(12);
      const blockAlign = header.readUInt16LE(20);
      // The decoder's own figure (rate × block) rather than the header's byte-rate field, which it ignores.
      bytesPerSecond = rate * (blockAlign || channels);
    }
    if (id === 'data') return bytesPerSecond > 0 ? Math.min(length, size - at - 8) / bytesPerSecond : undefined;
    at += 8 + length + (length % 2);
  }
  return undefined;
}

function flacSeconds(head: Buffer): number | undefined {
  // "fLaC", then the STREAMINFO block (type 0): 4-byte block header, then 34 bytes.
  if (head.length < 42 || head.toString('latin1', 0, 4) !== 'fLaC' || (head[4]! & 0x7f) !== 0) return undefined;
  const info = head.subarray(8, 42);
  const rate = (info[10]! << 12) | (info[11]! << 4) | (info[12]! >> 4);
  const samples = (info[13]! & 0x0f) * 2 ** 32 + info.readUInt32BE(14);
  return rate > 0 && samples > 0 ? samples / rate : undefined;
}

/** kbps by [MPEG-1 ? 0 : 1][layer III, II, I][index]. */
const BITRATES = [
  [
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  ],
  [
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  ],
];
const SAMPLE_RATES: Record<number, number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

interface MpegFrame {
  /** 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5. */
  version: number;
  /** 1 Layer III, 2 Layer II, 3 Layer I. */
  layer: number;
  bitrate: number;
  rate: number;
  samples: number;
  /** Offset of the side information's end (where a Xing header sits). */
  xingAt: number;
  /** Bytes of the frame, header included. */
  length: number;
}

function mpegFrame(b: Buffer, at: number): MpegFrame | undefined {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return undefined;
  const version = (b[at + 1]! >> 3) & 3; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
  const layer = (b[at + 1]! >> 1) & 3; // 1 III, 2 II, 3 I
  const index = b[at + 2]! >> 4;
  const rates = SAMPLE_RATES[version];
  const rate = rates?.[(b[at + 2]! >> 2) & 3];
  if (!rates || !rate || layer === 0 || index === 0 || index === 15) return undefined;
  const bitrate = BITRATES[version === 3 ? 0 : 1]![layer - 1]![index]! * 1000;
  const samples = layer === 3 ? 384 : layer === 2 || version === 3 ? 1152 : 576;
  const mono = b[at + 3]! >> 6 === 3;
  const side = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
  const padding = (b[at + 2]! >> 1) & 1;
  const length =
    layer === 3
      ? (Math.floor((12 * bitrate) / rate) + padding) * 4
      : Math.floor(((samples / 8) * bitrate) / rate) + padding;
  return { version, layer, bitrate, rate, samples, xingAt: at + 4 + side, length };
}

/** Frames after the first that must follow it, alike, for bytes to count as a stream (those the head holds). */
const MPEG_FOLLOWING_FRAMES = 2;

/**
 * A frame at `at` followed by frames of the same version, layer and sample rate where each one's length says (at
 * least one, and as many of MPEG_FOLLOWING_FRAMES as the head holds): a real stream, not bytes that look like a
 * sync. Random data passes one such check about once in 10^5 tries, two about once in 10^10.
 */
function mpegStream(b: Buffer, at: number): MpegFrame | undefined {
  const first = mpegFrame(b, at);
  if (!first) return undefined;
  let next = at + first.length;
  for (let i = 0; i < MPEG_FOLLOWING_FRAMES; i++) {
    if (i > 0 && next + 4 > b.length) break;
    const frame = mpegFrame(b, next);
    if (!frame || frame.version !== first.version || frame.layer !== first.layer || frame.rate !== first.rate)
      return undefined;
    next += frame.length;
  }
  return first;
}

function mp3Seconds(size: number, head: Buffer): number | undefined {
  let at = 0;
  // An ID3v2 tag: 10-byte header with a synchsafe size.
  if (head.toString('latin1', 0, 3) === 'ID3' && head.length >= 10)
    at = 10 + ((head[6]! << 21) | (head[7]! << 14) | (head[8]! << 7) | head[9]!);
  let frame: MpegFrame | undefined;
  for (const end = Math.min(head.length - 4, at + MAX_SYNC_SEARCH); at <= end && !(frame = mpegStream(head, at)); at++);
  if (!frame) return undefined;
  const tag = head.toString('latin1', frame.xingAt, frame.xingAt + 4);
  if ((tag === 'Xing' || tag === 'Info') && head.length >= frame.xingAt + 12 && head[frame.xingAt + 7]! & 1) {
    return (head.readUInt32BE(frame.xingAt + 8) * frame.samples) / frame.rate;
  }
  // VBRI sits 32 bytes after the frame header; its frame count 14 bytes into it.
  if (head.toString('latin1', at + 36, at + 40) === 'VBRI' && head.length >= at + 54)
    return (head.readUInt32BE(at + 50) * frame.samples) / frame.rate;
  return ((size - at) * 8) / frame.bitrate;
}

/** How many boxes of an MP4 file (top level, then inside `moov`) are looked at for `mvhd`. */
const MAX_MP4_BOXES = 64;
/** The end of an Ogg stream read for its last page. */
const OGG_TAIL_BYTES = 64 * 1024;
/** Opus granule positions count 48 kHz samples whatever the input rate. */
const OPUS_RATE = 48_000;

/** MP4/M4A/MOV: the movie header's duration over its timescale (`moov` may sit after the media data). */
function mp4Seconds(fd: number, start: number, size: number, head: Buffer): number | undefined {
  if (head.length < 12 || head.toString('latin1', 4, 8) !== 'ftyp') return undefined;
  let at = 0;
  let end = size;
  for (let i = 0; i < MAX_MP4_BOXES && at + 8 <= end; i++) {
    const box = readAt(fd, start + at, 48);
    if (box.length < 8) return undefined;
    let length = box.readUInt32BE(0);
    const type = box.toString('latin1', 4, 8);
    let header = 8;
    if (length === 1 && box.length >= 16) {
      length = Number(box.readBigUInt64BE(8));
      header = 16;
    } else if (length === 0) length = end - at;
    if (length < header) return undefined;
    if (type === 'moov') {
      // Into the movie box: its children are looked at next.
      end = at + length;
      at += header;
      continue;
    }
    if (type === 'mvhd' && box.length >= header + 20) {
      const v1 = box[header] === 1;
      const body = v1 ? readAt(fd, start + at + header, 32) : box.subarray(header);
      const timescale = body.readUInt32BE(v1 ? 20 : 12);
      const duration = v1 ? Number(body.readBigUInt64BE(24)) : body.readUInt32BE(16);
      return timescale > 0 ? duration / timescale : undefined;
    }
    at += length;
  }
  return undefined;
}

/** Ogg (Opus, Vorbis): the last page's granule position over the stream's rate (Opus: less its pre-skip). */
function oggSeconds(fd: number, start: number, size: number, head: Buffer): number | undefined {
  if (head.length < 64 || head.toString('latin1', 0, 4) !== 'OggS') return undefined;
  const packet = 27 + head[26]!;
  let rate: number;
  let skip = 0;
  if (head.toString('latin1', packet, packet + 8) === 'OpusHead') {
    rate = OPUS_RATE;
    skip = head.readUInt16LE(packet + 10);
  } else if (head.toString('latin1', packet, packet + 7) === '\x01vorbis') rate = head.readUInt32LE(packet + 12);
  else return undefined;
  const tailStart = Math.max(0, size - OGG_TAIL_BYTES);
  const tail = readAt(fd, start + tailStart, size - tailStart);
  const last = tail.lastIndexOf('OggS');
  if (last < 0 || last + 27 > tail.length || tail[last + 4] !== 0 || rate <= 0) return undefined;
  const granule = Number(tail.readBigInt64LE(last + 6));
  return granule > skip ? (granule - skip) / rate : undefined;
}

/** Seconds of audio in the bytes [start, end) of `file`; undefined when the format is not one read here. */
export function audioSeconds(file: string, start: number, end: number): number | undefined {
  const size = end - start;
  if (size <= 0) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const head = readAt(fd, start, Math.min(size, HEAD_BYTES));
    const seconds =
      wavSeconds(fd, start, size, head) ??
      flacSeconds(head) ??
      mp4Seconds(fd, start, size, head) ??
      oggSeconds(fd, start, size, head) ??
      mp3Seconds(size, head);
    return seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
