// The server as it runs in production: one ES module bundle of packages/server/src (with @tollway/shared) at
// packages/server/dist/main.mjs; npm packages stay external and load from node_modules. Running the bundle
// instead of transpiling with tsx at start-up costs measurably less CPU per relayed call (bench/RESULTS.md).
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
export const serverBundle = path.join(root, 'packages/server/dist/main.mjs');
const sources = [path.join(root, 'packages/server/src'), path.join(root, 'packages/shared/src')];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** True when the bundle is missing or older than the server or shared sources. */
export function serverIsStale() {
  if (!fs.existsSync(serverBundle)) return true;
  const built = fs.statSync(serverBundle).mtimeMs;
  return sources.some((dir) => newestMtime(dir) > built);
}

export async function buildServer() {
  await build({
    entryPoints: [path.join(root, 'packages/server/src/main.ts')],
    outfile: serverBundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    sourcemap: 'linked',
    // Workspace packages are TypeScript source and go into the bundle; every npm package stays external.
    plugins: [
      {
        name: 'external-npm-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (a) =>
            a.path.startsWith('@tollway/') ? undefined : { path: a.path, external: true },
          );
        },
      },
    ],
    logLevel: 'warning',
  });
}

if (process.argv[1] === import.meta.filename) await buildServer();
