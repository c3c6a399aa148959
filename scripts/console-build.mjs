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

export function buildConsole() {
  console.log('tollway: building the console (packages/web)…');
  const res = spawnSync('npm', ['run', 'build', '-w', '@tollway/web'], { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) process.exit(res.status ?? 1);
}
