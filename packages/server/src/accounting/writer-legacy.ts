import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { PRIVATE_FILE_MODE } from '../lib/private-files.js';
import type { WriteRecord } from './writer-apply.js';

/** The single-file journal of earlier versions (one batch per line), replayed once after an upgrade. */
export const LEGACY_JOURNAL = 'writer-journal.jsonl';

interface LegacyBatch {
  id: string;
  records: WriteRecord[];
  hourly?: true;
}

/** Applies the batches of an earlier version's journal that are not in the database yet, then deletes it. */
export async function replayLegacyJournal(
  dataDir: string,
  apply: (b: LegacyBatch) => Promise<boolean>,
  log: Logger,
): Promise<number> {
  const file = path.join(dataDir, LEGACY_JOURNAL);
  if (!fs.existsSync(file)) return 0;
  // The journal holds usage records of every caller: readable by the owner only.
  fs.chmodSync(file, PRIVATE_FILE_MODE);
  let replayed = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    let batch: LegacyBatch;
    try {
      batch = JSON.parse(line) as LegacyBatch;
    } catch {
      log.warn('writer journal: skipped a torn line (it was never applied)');
      continue;
    }
    if (await apply(batch)) replayed += batch.records.length;
  }
  fs.rmSync(file, { force: true });
  return replayed;
}
