import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordLine, segmentName } from '../../src/accounting/journal.js';
import { readJournal } from '../../src/accounting/journal-recovery.js';
import type { WriteRecord } from '../../src/accounting/writer-apply.js';
import { logRow } from '../support/log-row.js';

const others = [
  JSON.stringify({ model_ratio: 0.075, frt: 3, admin_info: { use_channel: [1, 2] }, upstream_model_name: 'gpt-4o' }),
  JSON.stringify({
    input_content: 'say "hi"\n\t\\ ünï 漢字 😀 \u0001 \ud800 </script>',
    output_content: '',
    n: -0,
    big: 1e21,
    small: 5e-7,
  }),
];

const record = (other: string): WriteRecord => ({
  userId: 1,
  tokenId: 2,
  tokenLimited: true,
  channelId: 3,
  quota: 42,
  countsRequest: true,
  log: logRow({ user_id: 1, quota: 42, request_id: 'r1', other }),
});

describe('journal record lines', () => {
  it('carry a JSON `other` unescaped, and the reader gives back the same text', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-journal-line-'));
    try {
      const records = others.map(record);
      const lines = records.map((r, i) => recordLine(r, `c${i}`, true));
      // The record is left as it was.
      expect(records.map((r) => r.log!.other)).toEqual(others);
      for (const [i, l] of lines.entries())
        expect(JSON.parse(l)).toMatchObject({ k: 'w', i: `c${i}`, o: JSON.parse(others[i]!) });
      const plain = recordLine(record(others[0]!), undefined, false);
      expect(JSON.parse(plain)).toEqual({ k: 'w', r: record(others[0]!) });
      const header = JSON.stringify({ k: 'h', id: 'seg-1' });
      fs.writeFileSync(path.join(dir, segmentName(0)), `${[header, ...lines, plain].join('\n')}\n`);
      const read = readJournal(dir);
      expect(read.tornLines).toBe(0);
      expect(read.batches[0]!.records).toEqual([...records, record(others[0]!)]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('write an empty or absent `other` as a plain record', () => {
    const noLog: WriteRecord = { ...record(''), log: undefined };
    expect(JSON.parse(recordLine(record(''), 'c', true))).toEqual({ k: 'w', r: record(''), i: 'c' });
    expect(JSON.parse(recordLine(noLog, 'c', true))).toEqual({ k: 'w', r: { ...noLog, log: undefined }, i: 'c' });
  });
});
