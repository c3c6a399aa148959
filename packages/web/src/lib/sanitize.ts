import DOMPurify, { type Config, type DOMPurify as Purifier } from 'dompurify';
import { safeUrl } from './safe-url';

export { safeUrl, type UrlUse } from './safe-url';

/**
 * The one sanitizer for administrator- and user-supplied HTML (messages, notice, home page, about, footer); links,
 * images and frames inside it follow the URL policy of safe-url.ts (re-exported here).
 */

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
export const ALLOWED_ATTR = [
  'href',
  'src',
  'alt',
  'title',
  'width',
  'height',
  'colspan',
  'rowspan',
  'align',
  'start',
  'open',
  'lang',
  'dir',
];

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
