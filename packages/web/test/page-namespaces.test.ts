import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
/** Shipped with the entry (i18n/index.ts): never fetched, never a suspension. */
const BUNDLED = ['common', 'shell'];
const EXTENSIONS = ['.tsx', '.ts', '/index.tsx', '/index.ts'];

/** The file a relative import names, or undefined for a package or a file that is not source. */
function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  for (const ext of ['', ...EXTENSIONS]) {
    const file = base + ext;
    if (/\.tsx?$/.test(file) && fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  }
  return undefined;
}

/** The local names an import clause binds (`X`, `{ A, B as C }`; types left out). */
function boundNames(clause: string): string[] {
  const names: string[] = [];
  const braces = /\{([^}]*)\}/.exec(clause);
  for (const part of braces?.[1]?.split(',') ?? []) {
    const item = part.trim();
    if (!item || item.startsWith('type ')) continue;
    names.push(
      item
        .split(/\s+as\s+/)
        .at(-1)!
        .trim(),
    );
  }
  const head = clause
    .replace(/\{[^}]*\}/, '')
    .replace(/,/g, ' ')
    .trim();
  if (/^[A-Za-z_$][\w$]*$/.test(head) && head !== 'type') names.push(head);
  return names;
}

/** The components a file renders only inside a <Suspense> of its own: what they fetch waits at that boundary. */
function renderedBehindBoundary(text: string): Set<string> {
  const inside = new Set<string>();
  let outside = text;
  for (const m of text.matchAll(/<Suspense\b[\s\S]*?<\/Suspense>/g)) {
    for (const n of m[0].matchAll(/<([A-Z][\w$]*)/g)) if (n[1] !== 'Suspense') inside.add(n[1]!);
    outside = outside.replace(m[0], '');
  }
  for (const n of outside.matchAll(/<([A-Z][\w$]*)/g)) inside.delete(n[1]!);
  return inside;
}

/**
 * The files a file imports statically (`import … from`, `export … from`, `import '…'`), except those whose every
 * imported name it renders only inside a <Suspense> of its own; `import()` is a chunk of its own (a lazy part).
 */
function staticImports(file: string, text: string): string[] {
  const behind = renderedBehindBoundary(text);
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s(?:([^'";]*?)\sfrom\s)?['"]([^'"]+)['"]/gm)) {
    const target = resolveImport(file, m[3]!);
    if (!target) continue;
    const names = m[1] === 'import' && m[2] ? boundNames(m[2]) : [];
    if (names.length > 0 && names.every((n) => behind.has(n))) continue;
    out.push(target);
  }
  return out;
}

/**
 * The namespaces a file names: asked of useTranslation by name, or handed as the `ns` or `namespace` prop to a shared
 * component that asks for it (RecordDrawer, ResetCredentialButton). A namespace computed at run time is not seen.
 */
function namespacesOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/useTranslation\(\s*(\[[^\]]*\]|'[^']*')/g)) {
    for (const ns of m[1]!.matchAll(/'([^']+)'/g)) found.push(ns[1]!);
  }
  for (const m of text.matchAll(/\b(?:ns|namespace)="([^"]+)"/g)) found.push(m[1]!);
  return found;
}

/** Every namespace named in the static import graph from `entry`, with the first file that names it. */
function namespacesReached(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const used = new Map<string, string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const ns of namespacesOf(text)) if (!used.has(ns)) used.set(ns, path.relative(SRC, file));
    queue.push(...staticImports(file, text));
  }
  return used;
}

/** The router's pages: the module each lazyPage loads and the namespaces it fetches with it. */
function routerPages(): { page: string; file: string; preloaded: string[] }[] {
  const router = path.join(SRC, 'app/router.tsx');
  const text = fs.readFileSync(router, 'utf8');
  const pages = [
    ...text.matchAll(/const (\w+) = lazyPage\(\s*\(\) => import\('([^']+)'\)((?:\s*,\s*'[^']+')*)\s*,?\s*\)/g),
  ];
  return pages.map((m) => ({
    page: m[1]!,
    file: resolveImport(router, m[2]!)!,
    preloaded: [...m[3]!.matchAll(/'([^']+)'/g)].map((n) => n[1]!),
  }));
}

/**
 * A page fetches its texts with its code (lazyPage): a namespace it reaches without having fetched it suspends the
 * page when that part first renders, and the whole page is swapped for the loading fallback for a moment (the user
 * list did so when its rows rendered the passkey reset button: the page blanked for ~0.4 s, and a click on it then
 * was lost). So every namespace a page's statically imported code names is among those it fetches.
 */
describe('console pages fetch every namespace their code asks for', () => {
  const pages = routerPages();

  it('finds the router pages', () => {
    expect(pages.length).toBeGreaterThan(30);
    for (const p of pages) expect(p.file, p.page).toBeDefined();
  });

  it.each(pages.map((p) => [p.page, p] as const))('%s', (_name, p) => {
    const missing = [...namespacesReached(p.file)]
      .filter(([ns]) => !BUNDLED.includes(ns) && !p.preloaded.includes(ns))
      .map(([ns, file]) => `${ns} (${file})`);
    expect(missing).toEqual([]);
  });
});
