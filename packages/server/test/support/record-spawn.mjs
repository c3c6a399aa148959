// Preloaded (`--import`) into `npm start` by the Dockerfile test: in scripts/start.mjs only, the first spawn is
// written to RECORD_SPAWN_TO as JSON ({ file, args, cwd }) instead of run, and the process exits.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

if (process.argv[1]?.endsWith('/scripts/start.mjs')) {
  childProcess.spawn = (file, args) => {
    fs.writeFileSync(process.env.RECORD_SPAWN_TO, JSON.stringify({ file, args, cwd: process.cwd() }));
    process.exit(0);
  };
  syncBuiltinESMExports();
}
