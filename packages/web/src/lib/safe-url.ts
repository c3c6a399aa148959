/**
 * The URL policy for every link, image and frame address the console takes from settings or content (no
 * DOMPurify here: the shell checks links without loading the HTML sanitizer).
 */

/** What a URL is used for: links may also be mailto:; a page (framed, opened or redirected to) is an absolute http(s) address. */
export type UrlUse = 'link' | 'image' | 'page';

const ALLOWED_PROTOCOLS: Record<UrlUse, ReadonlySet<string>> = {
  link: new Set(['http:', 'https:', 'mailto:']),
  image: new Set(['http:', 'https:']),
  page: new Set(['http:', 'https:']),
};

/** Relative URLs are resolved against this (only its protocol matters: relative means http(s)). */
const RELATIVE_BASE = 'https://relative.invalid/';

/** Browsers drop tabs and line breaks anywhere in a URL, and C0 controls and spaces around it. */
const IGNORED_INSIDE = /[\t\n\r]/g;
const BLANK = '[\\u0000-\\u0020\\u007f-\\u009f\\u00a0\\u2000-\\u200f\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
const IGNORED_AROUND = new RegExp(`^${BLANK}+|${BLANK}+$`, 'g');
const ABSOLUTE_HTTP = /^https?:\/\//i;

/**
 * The address when it is safe for `use`, else undefined: http(s), mailto (links only) or relative; never
 * javascript:, data:, vbscript: or any other scheme, however it is disguised with controls or whitespace.
 */
export function safeUrl(raw: string | null | undefined, use: UrlUse): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const url = raw.replace(IGNORED_INSIDE, '').replace(IGNORED_AROUND, '');
  if (url === '') return undefined;
  if (use === 'page' && !ABSOLUTE_HTTP.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url, RELATIVE_BASE);
  } catch {
    return undefined;
  }
  return ALLOWED_PROTOCOLS[use].has(parsed.protocol) ? url : undefined;
}
