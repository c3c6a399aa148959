import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { activeLogFile, LOG_FILE_PATTERN, stdoutAndFile } from '../../src/log-file.js';
import { createLogger } from '../../src/logger.js';
import { cleanupLogFiles, listLogFiles } from '../../src/modules/performance/log-files.js';

describe('log files in LOG_DIR', () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-logdir-')), 'nested', 'logs');
  afterAll(() => fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true }));

  it('writes the log to a new owner-only file named for the start time, which a clean-up never deletes', async () => {
    const log = createLogger('info', stdoutAndFile(dir, new Date(Date.UTC(2031, 0, 2, 3, 4, 5))));
    const file = path.join(dir, 'tollway-20310102030405.log');
    expect(activeLogFile()).toBe(file);
    expect(LOG_FILE_PATTERN.test(path.basename(file))).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    log.info({ probe: 'log-file-unit' }, 'written to the file');
    log.debug('below the level');
    for (let i = 0; i < 40 && !fs.readFileSync(file, 'utf8').includes('log-file-unit'); i++)
      await new Promise((r) => setTimeout(r, 25));
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ probe: 'log-file-unit', msg: 'written to the file' });

    // An older file is deleted by count; the file being written is kept even when it is not among the newest.
    fs.writeFileSync(path.join(dir, 'tollway-20990101000000.log'), 'newer');
    fs.writeFileSync(path.join(dir, 'tollway-20200101000000.log'), 'older');
    const result = await cleanupLogFiles(dir, 'by_count', 1, activeLogFile());
    expect(result).toEqual({ deleted_count: 1, freed_bytes: 5, failed_files: [] });
    expect((await listLogFiles(dir)).files.map((f) => f.name)).toEqual([
      'tollway-20990101000000.log',
      'tollway-20310102030405.log',
    ]);
  });
});
