/**
 * The documentation's Markdown made ready for the console's converter (lib/markdown.ts), and what the docs page reads
 * from it: heading anchors and the side navigation. The converter breaks a paragraph at every source line and ends a
 * list item at its first line; the docs wrap at 120 columns, so their soft-wrapped lines are joined first.
 */

const FENCE = /^\s*```/;
/** Lines that start a block of their own: never joined to the line before. */
const BLOCK_START = /^\s*(#{1,6}\s|```|>|\||([-*+]|\d+[.)])\s+|([-*_])(\s*\3){2,}\s*$)/;

/** The Markdown with HTML comments dropped and soft-wrapped lines of paragraphs and list items joined. */
export function reflowMarkdown(source: string): string {
  const lines = source
    .replace(/\r\n?/g, '\n')
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n');
  const out: string[] = [];
  let inFence = false;
  let joinable = false;
  for (const line of lines) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      out.push(line);
      joinable = false;
      continue;
    }
    if (inFence) {
      out.push(line);
      continue;
    }
    const blank = line.trim() === '';
    if (!blank && joinable && !BLOCK_START.test(line)) {
      out[out.length - 1] = `${out[out.length - 1]!.trimEnd()} ${line.trim()}`;
      continue;
    }
    out.push(line);
    joinable = !blank && !/^\s*(#{1,6}\s|\|)/.test(line);
  }
  return out.join('\n');
}

/**
 * A heading's anchor as GitHub makes it (the docs' links are written for GitHub too): lower case, punctuation
 * dropped, each space a hyphen. The docs test (packages/server/test/support/docs-citations.ts) uses the same rule.
 */
export function headingSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

export interface DocsNavGroup {
  title: string;
  items: { label: string; path: string }[];
}

/**
 * The side navigation from the index (docs/README.md): each `##` heading a group, each link to a page of the docs
 * (relative, ending in .md) an entry; links leaving the docs folder are left out.
 */
export function docsNavigation(index: string): DocsNavGroup[] {
  const groups: DocsNavGroup[] = [];
  let inFence = false;
  for (const line of index.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = /^##\s+(.+)$/.exec(line);
    if (heading) {
      groups.push({ title: heading[1]!.trim(), items: [] });
      continue;
    }
    const group = groups.at(-1);
    if (!group || !/^\s*[-*]\s/.test(line)) continue;
    for (const m of line.matchAll(/\[([^\]]+)\]\(([^)\s#]+\.md)\)/g)) {
      if (m[2]!.startsWith('..') || /^[a-z]+:/i.test(m[2]!)) continue;
      group.items.push({ label: m[1]!.replace(/`/g, ''), path: m[2]! });
    }
  }
  return groups.filter((g) => g.items.length > 0);
}

/** The page a docs URL shows: /docs and /docs/ are the index; anything else must name a .md file. */
export function docPathOf(splat: string | undefined): string | undefined {
  const path = (splat ?? '').replace(/^\/+/, '');
  if (path === '') return 'README.md';
  return /^[\w./-]+\.md$/.test(path) && !path.split('/').includes('..') ? path : undefined;
}
