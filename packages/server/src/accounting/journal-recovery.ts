import fs from 'node:fs';
import path from 'node:path';
import type { LogEvent } from '@tollway/shared';
import type { Insertable } from 'kysely';
import type { LogsTable } from '../db/schema.js';
import { SEGMENT_SUFFIX, type JournalLine } from './journal.js';
import type { WriteRecord } from './writer-apply.js';

/** A segment's batch as read back: its id (the one recorded in writer_batches) and its records, in order. */
export interface RecoveredBatch {
  id: string;
  hourly: boolean;
  records: WriteRecord[];
}

/** What the journal folder holds after an unclean stop. */
export interface JournalContents {
  /** Segment files, oldest first. */
  files: string[];
  batches: RecoveredBatch[];
  /** Records of calls opened and never closed: each is billed at its reservation. */
  unsettled: WriteRecord[];
  /** The id of the last segment with a header, for an id of the recovery batch that is the same on every replay. */
  lastId: string | undefined;
  /** Lines that could not be read (a torn last line of a segment: it was never acknowledged). */
  tornLines: number;
}

/** What a log row of a call billed on recovery says to the user (the console writes it from the row's event). */
export const UNSETTLED_CALL_CONTENT = 'billed at its reservation: the server stopped before this call was settled';

/** The log row of a call billed on recovery: its English content and the event the console words in the viewer's language. */
function unsettledLog(log: Insertable<LogsTable>): Insertable<LogsTable> {
  let other: object = {};
  try {
    const parsed: unknown = JSON.parse(log.other || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) other = parsed;
  } catch {
    // Written by this server, so never torn; the event alone if it were.
  }
  const event: LogEvent = { kind: 'unsettled_call' };
  return { ...log, content: UNSETTLED_CALL_CONTENT, other: JSON.stringify({ ...other, event }) };
}

/** Reads every segment of the journal folder: the batches to apply and the calls that never settled. */
export function readJournal(dir: string): JournalContents {
  const out: JournalContents = { files: [], batches: [], unsettled: [], lastId: undefined, tornLines: 0 };
  if (!fs.existsSync(dir)) return out;
  const names = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(SEGMENT_SUFFIX))
    .sort();
  const opened = new Map<string, WriteRecord>();
  const closed = new Set<string>();
  for (const name of names) {
    const file = path.join(dir, name);
    out.files.push(file);
    let batch: RecoveredBatch | undefined;
    for (const text of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!text) continue;
      let line: JournalLine;
      try {
        line = JSON.parse(text) as JournalLine;
      } catch {
        out.tornLines++;
        continue;
      }
      if (line.k === 'h') {
        batch = { id: line.id, hourly: line.hourly === true, records: [] };
        out.batches.push(batch);
        out.lastId = line.id;
      } else if (!batch) {
        // Lines before a header cannot happen (the header is written when the file is created); never guess.
        out.tornLines++;
      } else if (line.k === 's') {
        batch.hourly = line.hourly;
      } else if (line.k === 'o') {
        // A call carried forward from an older segment appears twice: the same call, billed once.
        opened.set(line.i, line.r);
      } else if (line.k === 'w') {
        if (line.o !== undefined && line.r.log) line.r.log.other = JSON.stringify(line.o);
        batch.records.push(line.r);
        if (line.i) closed.add(line.i);
      } else if (line.k === 'x') {
        closed.add(line.i);
      }
    }
  }
  for (const [id, record] of opened) {
    if (closed.has(id)) continue;
    out.unsettled.push(record.log ? { ...record, log: unsettledLog(record.log) } : record);
  }
  return out;
}
