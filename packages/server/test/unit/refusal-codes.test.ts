import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The source with comments removed and the text inside string and template literals blanked (a template's
 * ${…} stays code), so a call is found only where it is code and its parentheses can be matched.
 */
export function codeOnly(src: string): string {
  let out = '';
  /** Open template literals: the brace depth of the ${…} we are in (-1: in the literal's text). */
  const templates: number[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    const inTemplateText = templates.length > 0 && templates[templates.length - 1] === -1;
    if (inTemplateText) {
      if (c === '\\') {
        out += '  ';
        i += 2;
      } else if (c === '`') {
        templates.pop();
        out += c;
        i++;
      } else if (c === '$' && next === '{') {
        templates[templates.length - 1] = 0;
        out += '${';
        i += 2;
      } else {
        out += c === '\n' ? '\n' : ' ';
        i++;
      }
      continue;
    }
    if (c === '/' && next === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      // The comment's line breaks stay, so a finding's line number is the source's.
      out += src.slice(i, stop).replace(/[^\n]/g, '');
      i = stop;
      continue;
    }
    if (c === "'" || c === '"') {
      out += c;
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\') i++;
        i++;
        out += ' ';
      }
      out += c;
      i++;
      continue;
    }
    if (c === '`') {
      templates.push(-1);
      out += c;
      i++;
      continue;
    }
    if (templates.length > 0) {
      if (c === '{') templates[templates.length - 1]!++;
      if (c === '}') {
        if (templates[templates.length - 1] === 0) templates[templates.length - 1] = -1;
        else templates[templates.length - 1]!--;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The top-level arguments of the call whose '(' is at `open` (blank when there are none). */
function argumentsAt(code: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        args.push(code.slice(start, i));
        break;
      }
    } else if (c === ',' && depth === 1) {
      args.push(code.slice(start, i));
      start = i + 1;
    }
  }
  return args.map((a) => a.trim()).filter((a) => a !== '');
}

/** The position of the '{' of the object literal that holds `at` (-1 when none does). */
function enclosingBrace(code: string, at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const c = code[i];
    if (c === '}' || c === ')' || c === ']') depth++;
    else if (c === '(' || c === '[') depth--;
    else if (c === '{') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/**
 * Refusals without a code: `new ApiError(…)` without a `code` in its detail, refused/notFound/conflict given a
 * message but no code, forbidden given a message but no code (forbidden() and notFound() alone are the plain
 * no_permission and not_found), and a `{success: false, …}` answer written without a `code`.
 */
export function uncodedRefusals(src: string): string[] {
  const code = codeOnly(src);
  const found: number[] = [];
  const report = (at: number) => found.push(code.slice(0, at).split('\n').length);
  for (const m of code.matchAll(/\bnew ApiError\(|(?<![.\w])(refused|notFound|conflict|forbidden)\(/g)) {
    const open = m.index + m[0].length - 1;
    const args = argumentsAt(code, open);
    const helper = m[1];
    const alone = helper === 'forbidden' || helper === 'notFound' ? args.length === 0 : false;
    const uncoded = helper === undefined ? !args.some((a) => /\bcode\b/.test(a)) : !alone && args.length < 2;
    if (uncoded) report(m.index);
  }
  for (const m of code.matchAll(/\bsuccess:\s*false\b/g)) {
    const open = enclosingBrace(code, m.index);
    const body = open < 0 ? '' : argumentsAt(code, open).join(',');
    if (!/\bcode\b/.test(body)) report(m.index);
  }
  const lines = src.split('\n');
  return found.sort((a, b) => a - b).map((n) => `line ${n}: ${lines[n - 1]!.trim()}`);
}

/**
 * Every folder of the server is scanned: the ones that answer /api (http/, modules/, core/, lib/, accounting/) and
 * the relay, whose own refusals are RelayErrors in the caller's protocol (not matched here) but whose video routes
 * and upstream helpers throw the same ApiErrors the console reads. None is exempt.
 */
describe('refusals in the server carry an error code', () => {
  it('finds uncoded refusals and leaves coded ones, comments and strings alone', () => {
    const sample = [
      "throw new ApiError('plain');",
      "throw refused('only the author');",
      "throw notFound('no such row');",
      "throw forbidden('no');",
      "reply.send({ success: false, message: 'plain' });",
      "throw refused('only the author', ErrorCode.MessageAuthorOnly);",
      'throw notFound(`no tag "${tag}"`, ErrorCode.TagNotFound, { tag });',
      'throw forbidden();',
      'throw notFound();',
      "throw new AccountTaken('taken', 409, true, { code: ErrorCode.OAuthAccountTaken });",
      "throw new ApiError('state', 403, true, { code: ErrorCode.OAuthStateInvalid });",
      "reply.status(404).send({ success: false, message: 'gone', code: ErrorCode.NotFound, params: { a: [1, 2] } });",
      'return { success: false, message, code };',
      "// a comment: throw refused('x')",
      '/* a comment of',
      "   two lines: throw refused('x') */",
      "const s = 'refused(x) and new ApiError(y) success: false';",
      'const t = `refused(${refused(a, b)})`;',
      'if (err instanceof ApiError) throw err;',
      "throw refused('after a block comment');",
    ].join('\n');
    expect(uncodedRefusals(sample).map((f) => f.split(':')[0])).toEqual([
      'line 1',
      'line 2',
      'line 3',
      'line 4',
      'line 5',
      'line 20',
    ]);
  });

  it('every refusal under packages/server/src has a code (the console shows its text in the viewer language)', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = path.relative(SRC, file).split(path.sep).join('/');
      for (const f of uncodedRefusals(fs.readFileSync(file, 'utf8'))) offenders.push(`${rel} ${f}`);
    }
    expect(offenders).toEqual([]);
  });
});
