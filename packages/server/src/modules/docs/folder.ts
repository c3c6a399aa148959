import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the documentation's Markdown is: the `docs/` folder at the repository's root, found by walking up from this
 * file. The same walk finds it from the sources (packages/server/src/modules/docs), from the bundle
 * (packages/server/dist) and in the container image (/app/packages/server/dist, with /app/docs copied beside).
 */

/** How many folders up the walk looks: enough for the sources' depth, not the whole disk. */
const MAX_LEVELS_UP = 6;
/** The file that marks the folder as the documentation (its index). */
const INDEX = 'README.md';

export function findDocsFolder(from: string = import.meta.dirname): string | undefined {
  let dir = from;
  for (let i = 0; i <= MAX_LEVELS_UP; i++) {
    const candidate = path.join(dir, 'docs');
    if (fs.existsSync(path.join(candidate, INDEX))) return fs.realpathSync(candidate);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** A document's name: folders and a file of letters, digits, dots, dashes and underscores, ending in .md. */
const DOC_NAME = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*\.md$/;

/**
 * The absolute file of a requested document inside the folder, or undefined: only `.md` files, no `..` or hidden
 * segment (the pattern allows no segment starting with a dot), and nothing a link would take outside the folder.
 */
export function resolveDoc(folder: string, name: string): string | undefined {
  if (!DOC_NAME.test(name)) return undefined;
  const file = path.resolve(folder, name);
  if (!file.startsWith(folder + path.sep)) return undefined;
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return undefined;
  }
  if (!real.startsWith(folder + path.sep) || !fs.statSync(real).isFile()) return undefined;
  return real;
}
