// A second Tollway built from an earlier git revision, so one bench run measures what a change added.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './targets.js';

/**
 * Builds the server bundle of `rev` (its server and shared sources, this checkout's node_modules) and returns
 * the bundle's path. The bundle is written next to the current one so its npm imports resolve the same way.
 */
export async function buildBaselineBundle(rev: string): Promise<{ bundle: string; commit: string }> {
  const commit = execFileSync('git', ['rev-parse', '--short', rev], { cwd: ROOT, encoding: 'utf8' }).trim();
  const src = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-baseline-'));
  try {
    const archive = execFileSync('git', ['archive', commit, 'packages/server/src', 'packages/shared/src'], {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', src], { input: archive });
    const bundle = path.join(ROOT, `packages/server/dist/baseline-${commit}.mjs`);
    await build({
      entryPoints: [path.join(src, 'packages/server/src/main.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20.19',
      alias: { '@tollway/shared': path.join(src, 'packages/shared/src/index.ts') },
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
    return { bundle, commit };
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
}
