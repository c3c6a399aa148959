import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { lastOf, readDockerfile, REPO_ROOT, type DockerStage } from './deploy-files.js';

/** The workspace whose production dependencies the image installs (`npm ci --omit=dev --workspace=…`). */
const SERVER_WORKSPACE = '@tollway/server';
/** Workspace links the image removes: the bundle holds @tollway/shared. */
const WORKSPACE_SCOPE = '@tollway';

/** The final stage's ENV instructions as one record. */
export function imageEnv(stage: DockerStage): Record<string, string> {
  const pairs = stage.instructions.filter((i) => i.op === 'ENV').flatMap((i) => i.args.split(' '));
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
}

/** Package folders npm counts as the server workspace's production dependencies in this checkout. */
function productionPackages(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', `--workspace=${SERVER_WORKSPACE}`, '--all', '--parseable'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return [...new Set(out.split('\n').filter((p) => p.includes(`${path.sep}node_modules${path.sep}`)))];
}

/** Hard links of a tree (a copy where the disk differs); symbolic links are kept as they are. */
function linkTree(from: string, to: string): void {
  const st = fs.lstatSync(from);
  if (st.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const entry of fs.readdirSync(from)) linkTree(path.join(from, entry), path.join(to, entry));
  } else if (st.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
  else {
    try {
      fs.linkSync(from, to);
    } catch {
      fs.copyFileSync(from, to);
    }
  }
}

/**
 * The image's WORKDIR rebuilt under `root` from this checkout, following the final stage's COPY lines: a
 * node_modules folder holds the packages npm installs for the server without dev dependencies (linked from the
 * checkout's), any other source (the bundle, the console) is copied as built.
 */
export function layOutImage(root: string): void {
  const final = readDockerfile().at(-1)!;
  const workdir = lastOf(final, 'WORKDIR')!;
  const production = productionPackages();
  for (const copy of final.instructions.filter((i) => i.op === 'COPY')) {
    const [, source, target] = copy.args.split(' ') as [string, string, string];
    const rel = path.relative(workdir, source);
    const local = path.join(REPO_ROOT, rel);
    const dest = path.join(root, target);
    if (path.basename(rel) !== 'node_modules') {
      if (!fs.existsSync(local)) throw new Error(`the image copies ${rel}, which is not built here`);
      fs.cpSync(local, dest, { recursive: true });
      continue;
    }
    fs.mkdirSync(dest, { recursive: true });
    for (const pkg of production) {
      const inside = path.relative(local, pkg);
      // Top-level packages of this folder only; nested ones come with their parent.
      if (inside.startsWith('..') || inside.includes(`node_modules${path.sep}`) || inside.startsWith(WORKSPACE_SCOPE))
        continue;
      linkTree(pkg, path.join(dest, inside));
    }
  }
}
