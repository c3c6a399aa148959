import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const web = path.join(root, 'packages/web');
const built = path.join(web, 'dist/index.html');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** True when the console bundle is missing or older than the web or shared sources. */
export function consoleIsStale() {
  if (!fs.existsSync(built)) return true;
  const sources = Math.max(newestMtime(web), newestMtime(path.join(root, 'packages/shared/src')));
  return sources > fs.statSync(built).mtimeMs;
}

/**
 * Builds the console with Vite's errors only (its list of a few hundred written files is noise on a
 * first `npm start`); says how long it took. Exits with the build's status when it fails.
 */
export function buildConsole() {
  console.log('tollway: building the console (packages/web), a minute or less on a first start…');
  const started = Date.now();
  const res = spawnSync('npm', ['run', 'build', '--silent', '-w', '@tollway/web', '--', '--logLevel', 'error'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (res.status !== 0) process.exit(res.status ?? 1);
  console.log(`tollway: console built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
