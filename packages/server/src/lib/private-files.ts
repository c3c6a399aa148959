import fs from 'node:fs';

/** Files holding data or secrets (database, journal): owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Folders Tollway creates for its data: owner only. */
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `file` empty with owner-only permissions when it does not exist yet; an existing file is left as it is. */
export function createPrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
