import { afterAll, vi } from 'vitest';

/**
 * Run before each integration file (setupFiles), in a worker whose files share their modules (isolate: false): the
 * file must leave the worker as it found it. A changed environment variable or fake timers left on fail the file
 * that left them, instead of every file after it in the same worker (a TMPDIR pointed at a removed folder once
 * failed 154 files).
 */
const envAtStart = { ...process.env };

afterAll(() => {
  const changed = new Set<string>();
  for (const name of new Set([...Object.keys(envAtStart), ...Object.keys(process.env)]))
    if (process.env[name] !== envAtStart[name]) changed.add(name);
  const leftovers = [
    ...(changed.size > 0 ? [`environment variables changed and not put back: ${[...changed].join(', ')}`] : []),
    ...(vi.isFakeTimers() ? ['fake timers left on'] : []),
  ];
  if (leftovers.length > 0) throw new Error(`this file leaves state behind for the next file: ${leftovers.join('; ')}`);
});
