/** Samples a second of the test WAV files: 250 Hz, 8-bit mono (250 bytes a second, so two hours fit in 1.8 MB). */
export const WAV_RATE = 250;

/** A PCM WAV file of `seconds` (RIFF header, `fmt ` and `data` chunks; a quiet tone). */
export function wavFile(seconds: number, rate = WAV_RATE): Buffer {
  const data = Math.round(seconds * rate);
  const out = Buffer.alloc(44 + data);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + data, 4);
  out.write('WAVE', 8, 'latin1');
  out.write('fmt ', 12, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate, 28); // bytes a second
  out.writeUInt16LE(1, 32); // block align
  out.writeUInt16LE(8, 34); // bits a sample
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(data, 40);
  for (let i = 0; i < data; i++) out[44 + i] = 128 + Math.round(20 * Math.sin(i / 3));
  return out;
}
