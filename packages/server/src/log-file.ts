import fs from 'node:fs';
import path from 'node:path';
import pino, { type DestinationStream } from 'pino';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './lib/private-files.js';
import { FdOutput, stdoutDestination, stdoutLog } from './log-output.js';

/** The names of the log files this server writes in LOG_DIR; nothing else there is listed or deleted. */
export const LOG_FILE_PATTERN = /^tollway-\d{14}\.log$/;

let activeFile: string | undefined;
let fileOutput: FdOutput | undefined;

/** The file this process writes its log to (never deleted by a clean-up), when LOG_DIR is set. */
export function activeLogFile(): string | undefined {
  return activeFile;
}

/** The UTC time as YYYYMMDDHHMMSS. */
const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/**
 * stdout (readable at a terminal) and a new owner-only file `LOG_DIR/tollway-<YYYYMMDDHHMMSS>.log` (always JSON),
 * both written through never-blocking outputs; the level is the logger's. Throws when the directory or file
 * cannot be made.
 */
export function stdoutAndFile(dir: string, now = new Date()): DestinationStream {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const file = path.join(dir, `tollway-${stamp(now)}.log`);
  const fd = fs.openSync(file, 'a', PRIVATE_FILE_MODE);
  activeFile = file;
  fileOutput = new FdOutput(fd);
  const all = 'trace';
  return pino.multistream([
    { stream: stdoutDestination(), level: all },
    { stream: fileOutput, level: all },
  ]);
}

/** The log outputs (stdout, and the file when there is one), drained before an exit; never waits beyond the time. */
export const logOutputs = {
  drained: async (timeoutMs: number): Promise<void> => {
    await Promise.all([stdoutLog().drained(timeoutMs), fileOutput?.drained(timeoutMs)]);
  },
};
