import DOMPurify, { type Config, type DOMPurify as Purifier } from 'dompurify';

/**
 * The one sanitizer for administrator- and user-supplied HTML (messages, notice, home page, about, footer) and
 * the URL policy for every link, image and frame address the console takes from settings or content.
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

/** Text and layout markup only: no scripts, styles, forms, frames, objects, SVG/MathML, meta or base. */
export const ALLOWED_TAGS = [
  'a',
  'abbr',
  'b',
  'blockquote',
  'br',
  'caption',
  'cite',
  'code',
  'dd',
  'del',
  'details',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'ins',
  'kbd',
  'li',
  'mark',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'small',
  'span',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'u',
  'ul',
];

/** No event handlers, style, class, id or name (no script, no CSS tricks, no DOM clobbering). */
export const ALLOWED_ATTR = ['href', 'src', 'alt', 'title', 'width', 'height', 'colspan', 'rowspan', 'align', 'start', 'open', 'lang', 'dir'];

const CONFIG: Config = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOW_SELF_CLOSE_IN_ATTR: false,
};

/** Links open in a new tab without a handle back to the console or a Referer. */
const LINK_REL = 'noopener noreferrer';

function checkUrls(node: Element): void {
  const href = node.getAttribute('href');
  if (href !== null && safeUrl(href, 'link') === undefined) node.removeAttribute('href');
  const src = node.getAttribute('src');
  if (src !== null && safeUrl(src, 'image') === undefined) node.removeAttribute('src');
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', LINK_REL);
  }
}

let purifier: Purifier | undefined;

/** A DOMPurify instance of our own, so its hook cannot leak into (or be changed by) any other user of the library. */
function instance(): Purifier {
  if (!purifier) {
    purifier = DOMPurify(window);
    purifier.addHook('afterSanitizeAttributes', checkUrls);
  }
  return purifier;
}

/** Untrusted HTML reduced to the allow-list; the result is safe for innerHTML. */
export function sanitizeHtml(html: string): string {
  return instance().sanitize(html, CONFIG);
}
