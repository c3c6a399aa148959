import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_GROUPS, ENVIRONMENT_VARIABLES } from '../../src/environment.js';
import { environmentDoc, renderEnvironment } from '../../../../scripts/docs-env.mjs';
import {
  anchorsOf,
  codeSpans,
  docFiles,
  isCitedPath,
  linkTargets,
  pathExists,
  prose,
  readDoc,
  repoRoot,
  section,
} from '../support/docs-citations.js';

/**
 * The documentation cites the tree: every path, link, environment variable and npm script it names must exist, the
 * relay walk in the architecture must name real files, and the environment reference must be what the script
 * writes from the table. (Routes are checked against the running app in the integration docs-routes test.)
 */

const serverSrc = path.join(repoRoot, 'packages/server/src');

/** Every .ts file under a folder, as paths. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f));
}

/** The environment variables the server's code reads (env.X, process.env.X, intVar(env, 'X', …) and the like). */
function variablesReadBySource(): Set<string> {
  const names = new Set<string>();
  const reads = [
    /\benv\.([A-Z][A-Z0-9_]+)/g,
    /\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
    /\(\s*env,\s*'([A-Z][A-Z0-9_]+)'/g,
  ];
  for (const file of sourceFiles(serverSrc)) {
    if (file === 'environment.ts') continue;
    const text = fs.readFileSync(path.join(serverSrc, file), 'utf8');
    for (const re of reads) for (const m of text.matchAll(re)) names.add(m[1]!);
  }
  return names;
}

/** UPPER_SNAKE names that appear as identifiers or strings anywhere in the code (constants, bench and test knobs). */
function namesInCode(): Set<string> {
  const names = new Set<string>();
  const dirs = [
    'packages/server/src',
    'packages/shared/src',
    'packages/web/src',
    'bench',
    'scripts',
    'test',
    'packages/server/test',
  ];
  for (const dir of dirs) {
    const abs = path.join(repoRoot, dir);
    if (!fs.existsSync(abs)) continue;
    for (const file of sourceFiles(abs)) {
      if (file.includes('node_modules')) continue;
      for (const m of fs.readFileSync(path.join(abs, file), 'utf8').matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g))
        names.add(m[0]);
    }
  }
  for (const f of ['Dockerfile', 'deploy/compose.yaml', '.ci/run']) {
    const abs = path.join(repoRoot, f);
    if (fs.existsSync(abs))
      for (const m of fs.readFileSync(abs, 'utf8').matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)) names.add(m[0]);
  }
  return names;
}

/** new-api's variables that Tollway does not read: the switching guide names each, saying what replaces it. */
const NEW_API_ONLY_VARIABLES = new Set([
  'MEMORY_CACHE_ENABLED',
  'BATCH_UPDATE_ENABLED',
  'BATCH_UPDATE_INTERVAL',
  'GLOBAL_API_RATE_LIMIT',
  'GLOBAL_WEB_RATE_LIMIT',
  'CRITICAL_RATE_LIMIT_ENABLE',
  'UPDATE_TASK',
  'SQL_MAX_IDLE_CONNS',
  'SQL_MAX_OPEN_CONNS',
  'SQL_MAX_LIFETIME',
  'GIN_MODE',
  'FRONTEND_BASE_URL',
]);
const SWITCHING_GUIDE = 'docs/switching-from-new-api.md';

const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

describe('the docs cite what exists', () => {
  const files = docFiles();

  it('finds the documentation', () => {
    expect(files).toContain('docs/README.md');
    expect(files).toContain('docs/contributing/architecture.md');
    expect(files.length).toBeGreaterThan(20);
  });

  it('every repository path in backticks exists', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of files)
      for (const span of codeSpans(readDoc(file))) {
        if (!isCitedPath(span)) continue;
        checked++;
        if (!pathExists(span)) missing.push(`${file}: ${span}`);
      }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('every repository-rooted path written out of backticks (prose and code blocks) exists', () => {
    const rooted =
      /(?<![\w/.-])(?:packages|scripts|bench|deploy|docs|test)\/[\w./-]*\w\.(?:ts|tsx|mts|mjs|cjs|json|md|ya?ml|conf)\b/g;
    const missing: string[] = [];
    for (const file of files)
      for (const m of readDoc(file).matchAll(rooted)) if (!pathExists(m[0])) missing.push(`${file}: ${m[0]}`);
    expect(missing).toEqual([]);
  });

  it('every link to another file (and its heading) exists', () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = readDoc(file);
      for (const target of linkTargets(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [rel, anchor] = target.split('#') as [string, string | undefined];
        const resolved = rel === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), rel));
        const abs = path.join(repoRoot, resolved);
        if (resolved.startsWith('..') || !fs.existsSync(abs)) {
          broken.push(`${file}: ${target}`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(abs, 'utf8')).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every environment variable cited is one the server reads (or a name the code defines)', () => {
    const read = variablesReadBySource();
    const listed = new Set(ENVIRONMENT_VARIABLES.map((v) => v.name));
    const inCode = namesInCode();
    const unknown: string[] = [];
    for (const file of files)
      for (const span of codeSpans(readDoc(file))) {
        const name = span.replace(/=.*$/, '');
        if (!UPPER_SNAKE.test(name)) continue;
        if (!listed.has(name) && !read.has(name) && !inCode.has(name)) {
          if (file === SWITCHING_GUIDE && NEW_API_ONLY_VARIABLES.has(name)) continue;
          unknown.push(`${file}: ${name}`);
        }
      }
    expect(unknown).toEqual([]);
  });

  it('the environment table lists exactly the variables the server reads', () => {
    const read = variablesReadBySource();
    const listed = ENVIRONMENT_VARIABLES.map((v) => v.name);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...read].filter((n) => !listed.includes(n)).sort()).toEqual([]);
    expect(listed.filter((n) => !read.has(n)).sort()).toEqual([]);
    for (const v of ENVIRONMENT_VARIABLES) expect(Object.keys(ENVIRONMENT_GROUPS)).toContain(v.group);
  });

  it('docs/install/environment.md is what `npm run docs:env` writes', () => {
    const expected = renderEnvironment(ENVIRONMENT_GROUPS, ENVIRONMENT_VARIABLES);
    const actual = fs.readFileSync(environmentDoc, 'utf8');
    expect(actual === expected, 'docs/install/environment.md is stale: run `npm run docs:env`').toBe(true);
  });

  it('every `npm run` script cited exists in package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const missing: string[] = [];
    let checked = 0;
    for (const file of files)
      for (const m of readDoc(file).matchAll(/npm run ([\w:.-]+)/g)) {
        checked++;
        if (!(m[1]! in pkg.scripts)) missing.push(`${file}: npm run ${m[1]}`);
      }
    expect(checked).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });

  it('the README keeps the test command CI runs', () => {
    const readme = readDoc('README.md');
    expect(readme).toMatch(/```sh\nnpm test\n```/);
    expect(fs.readFileSync(path.join(repoRoot, '.ci/run'), 'utf8')).toMatch(/npm test/);
  });

  it("the architecture's relay walk names files that exist, in the relay's order", () => {
    const walk = section(readDoc('docs/contributing/architecture.md'), 'One relay call, stage by stage');
    const cited = codeSpans(walk).filter((s) => /\.ts$/.test(s));
    expect(cited.length).toBeGreaterThan(25);
    const missing = cited.filter((f) => !fs.existsSync(path.join(serverSrc, f)));
    expect(missing).toEqual([]);
    // The walk starts at the entry and ends at the writer.
    expect(cited[0]).toBe('relay/entry/hot-path.ts');
    expect(cited.at(-1)).toMatch(/^accounting\/writer/);
    expect(prose(walk)).toContain('POST /v1/chat/completions');
  });
});
