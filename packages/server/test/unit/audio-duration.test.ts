import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { audioSeconds } from '../../src/relay/surfaces/audio-duration.js';
import { wavFile } from '../support/audio-files.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-audio-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `bytes` written after a 100-byte prefix (as a file part sits inside a multipart body); its duration read there. */
function secondsOf(bytes: Buffer): number | undefined {
  const file = path.join(dir, crypto.randomBytes(6).toString('hex'));
  fs.writeFileSync(file, Buffer.concat([Buffer.alloc(100, 0x2d), bytes, Buffer.from('\r\n--boundary--\r\n')]));
  return audioSeconds(file, 100, 100 + bytes.length);
}

/** MPEG-1 Layer III, 128 kbps, 44.1 kHz, stereo: 417-byte frames of 1,152 samples. */
const FRAME = 417;
function mp3(frames: number, xing?: number): Buffer {
  const out = Buffer.alloc(frames * FRAME);
  for (let i = 0; i < frames; i++) out.set([0xff, 0xfb, 0x90, 0x00], i * FRAME);
  if (xing !== undefined) {
    out.write('Xing', 36, 'latin1');
    out.writeUInt32BE(1, 40);
    out.writeUInt32BE(xing, 44);
  }
  return out;
}

/** The headers of a FLAC stream: "fLaC" and a last STREAMINFO block of `samples` at `rate`. */
function flac(samples: number, rate: number): Buffer {
  const out = Buffer.alloc(42 + 100);
  out.write('fLaC', 0, 'latin1');
  out[4] = 0x80; // last block, STREAMINFO
  out.writeUIntBE(34, 5, 3);
  const info = out.subarray(8);
  info[10] = (rate >> 12) & 0xff;
  info[11] = (rate >> 4) & 0xff;
  info[12] = ((rate & 0x0f) << 4) | (1 << 1); // 2 channels
  info[13] = (15 << 4) | Math.floor(samples / 2 ** 32); // 16 bits a sample, high sample bits
  info.writeUInt32BE(samples % 2 ** 32, 14);
  return out;
}

/** An MP4 box: 32-bit size, type, content. */
const box = (type: string, ...content: Buffer[]) => {
  const body = Buffer.concat(content);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
};

/** An M4A file with its movie box after the media data (as many encoders write it): `duration` at `timescale`. */
function m4a(duration: number, timescale: number): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(timescale, 12);
  mvhd.writeUInt32BE(duration, 16);
  return Buffer.concat([
    box('ftyp', Buffer.from('M4A \0\0\0\0M4A mp42')),
    box('mdat', Buffer.alloc(5000, 9)),
    box('moov', box('mvhd', mvhd), box('trak', Buffer.alloc(50))),
  ]);
}

/** An Ogg page: header, one segment of `packet`, granule position `granule`. */
function oggPage(packet: Buffer, granule: bigint): Buffer {
  const head = Buffer.alloc(28);
  head.write('OggS', 0, 'latin1');
  head.writeBigInt64LE(granule, 6);
  head[26] = 1;
  head[27] = packet.length;
  return Buffer.concat([head, packet]);
}

function opus(seconds: number, preSkip: number): Buffer {
  const opusHead = Buffer.alloc(19);
  opusHead.write('OpusHead', 0, 'latin1');
  opusHead.writeUInt16LE(preSkip, 10);
  return Buffer.concat([
    oggPage(opusHead, 0n),
    oggPage(Buffer.alloc(200, 5), 960n),
    Buffer.alloc(3000, 1),
    oggPage(Buffer.alloc(200, 5), BigInt(seconds * 48_000 + preSkip)),
  ]);
}

describe('the duration of an uploaded audio file', () => {
  it('M4A: the movie header, found after the media data', () => {
    expect(secondsOf(m4a(44_100 * 1800, 44_100))).toBe(1800);
  });

  it('Ogg Opus: the last granule position at 48 kHz, less the pre-skip', () => {
    expect(secondsOf(opus(600, 312))).toBe(600);
  });

  it('WAV: the data chunk over the format’s bytes a second, past other chunks, never past the file', () => {
    expect(secondsOf(wavFile(7200, 250))).toBe(7200);
    const wav = wavFile(10, 8000);
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([6, 0, 0, 0]), Buffer.from('INFOab')]);
    const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
    expect(secondsOf(withList)).toBe(10);
    // A data chunk claiming more than the file holds counts only what is there.
    expect(secondsOf(wav.subarray(0, 44 + 4000))).toBe(0.5);
  });

  it('FLAC: STREAMINFO’s samples over its rate', () => {
    expect(secondsOf(flac(44_100 * 3600, 44_100))).toBe(3600);
  });

  it('MP3: a Xing frame count, else the constant bit rate over the audio bytes, after an ID3v2 tag', () => {
    expect(secondsOf(mp3(50, 10_000))).toBeCloseTo((10_000 * 1152) / 44_100, 6);
    const tag = Buffer.concat([Buffer.from('ID3'), Buffer.from([4, 0, 0, 0, 0, 0x01, 0x00]), Buffer.alloc(128)]);
    const cbr = secondsOf(Buffer.concat([tag, mp3(2000)]))!;
    expect(Math.abs(cbr - (2000 * 1152) / 44_100) / cbr).toBeLessThan(0.01);
  });

  it('anything else is unknown: an MP4 without its movie header, random bytes, a lone frame sync, unlike frames', () => {
    expect(
      secondsOf(Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A '), Buffer.alloc(1000)])),
    ).toBeUndefined();
    expect(secondsOf(Buffer.from([0xff, 0xfb, 0x90, 0x00, ...Buffer.alloc(2000, 7)]))).toBeUndefined();
    // Two syncs a frame apart whose sample rates differ (44.1 then 48 kHz) are not one stream.
    const unlike = mp3(3);
    unlike.set([0xff, 0xfb, 0x94, 0x00], FRAME);
    expect(secondsOf(unlike)).toBeUndefined();
    let found = 0;
    for (let i = 0; i < 200; i++) if (secondsOf(crypto.randomBytes(8192)) !== undefined) found++;
    expect(found).toBe(0);
  });
});
