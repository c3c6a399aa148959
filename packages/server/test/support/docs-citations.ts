import fs from 'node:fs';
import path from 'node:path';

/**
 * Reading the documentation for what it cites: the Markdown files (README.md, CHANGELOG.md, docs/**), the spans in
 * backticks, the links and the headings' anchors. The docs tests check each citation against the tree.
 */

export const repoRoot = path.resolve(import.meta.dirname, '../../../..');
export const docsRoot = path.join(repoRoot, 'docs');

/** Repository-relative paths of every documentation file. */
export function docFiles(): string[] {
  const out = ['README.md', 'CHANGELOG.md'];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

export const readDoc = (file: string): string => fs.readFileSync(path.join(repoRoot, file), 'utf8');

const FENCE = /^\s*```/;

/** The text outside fenced code blocks (a block's lines are blanked, so line numbers stay). */
export function prose(text: string): string {
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (FENCE.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** Every span in backticks outside code blocks. */
export function codeSpans(text: string): string[] {
  return [...prose(text).matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

/** Every Markdown link target outside code blocks. */
export function linkTargets(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/**
 * A heading's anchor as GitHub makes it (and the console's docs page): lower case, punctuation dropped, each space a
 * hyphen. Markup (backticks, emphasis, links) goes first.
 */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a file's headings; a repeated heading gets -1, -2, … as on GitHub. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingSlug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The lines of a section, from its heading to the next heading of the same or a higher level. */
export function section(text: string, heading: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.replace(/^#+\s+/, '') === heading && l.startsWith('#'));
  if (start < 0) return '';
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#+\s/.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Folders a path in the docs may be relative to, tried in order. */
export const PATH_ROOTS = [
  '',
  'packages/server/src',
  'packages/server',
  'packages/web/src',
  'packages/web',
  'packages/shared/src',
  'packages/shared',
];

/** Folders made at run time, and paths below an environment variable (`DATA_DIR/journal/`): not in the tree. */
const GENERATED = ['test-artifacts/', 'data/', 'node_modules/'];
const UNDER_VARIABLE = /^[A-Z][A-Z0-9_]*\//;

/** File kinds whose paths the docs cite. */
const CITED_EXTENSIONS = /\.(ts|tsx|mts|mjs|cjs|js|json|md|ya?ml|conf|css|html|sh)$/;

/**
 * Whether a code span is a repository path to check: a relative path with at least one folder, ending in a file
 * kind above or in `/` (a folder of two or more levels). Routes (leading `/`), URLs, placeholders (`<name>`,
 * `{x}`), globs and content types are not paths.
 */
export function isCitedPath(span: string): boolean {
  if (GENERATED.some((prefix) => span.startsWith(prefix)) || UNDER_VARIABLE.test(span)) return false;
  if (/[\s<>{}*…|:?=,]/.test(span) || span.startsWith('/') || span.startsWith('.') || !span.includes('/')) return false;
  if (CITED_EXTENSIONS.test(span)) return true;
  return span.endsWith('/') && span.split('/').filter(Boolean).length >= 2;
}

/** Whether a cited path exists under one of the roots. */
export function pathExists(span: string): boolean {
  return PATH_ROOTS.some((root) => fs.existsSync(path.join(repoRoot, root, span)));
}

/** Routes cited in the docs: `/api/…` and the relay's `/v1…` paths, with any method in front, query dropped. */
export function citedRoutes(span: string): string | undefined {
  const m = /^(?:(?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+)?(\/(?:api|v1|v1beta)(?:\/[^\s?]*)?)(?:\?\S*)?$/.exec(span);
  return m?.[1];
}
