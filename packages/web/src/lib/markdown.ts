import { safeUrl, sanitizeHtml } from './sanitize';

/**
 * A small Markdown-to-HTML converter for admin-authored content (notice, home page, about, messages).
 * Covers headings, paragraphs, emphasis, inline code, fenced code, links, images, lists,
 * block quotes, horizontal rules and simple tables. Text is HTML-escaped; links and images keep only
 * addresses the URL policy allows. Callers render through `renderContent`, which sanitizes the result.
 */

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&');

/** The (escaped) address as an attribute value, or undefined when the policy refuses it. */
function urlAttr(escaped: string, use: 'link' | 'image'): string | undefined {
  const url = safeUrl(unescapeHtml(escaped), use);
  return url === undefined ? undefined : escapeHtml(url);
}

const link = (label: string, url: string) => {
  const href = urlAttr(url, 'link');
  return href === undefined ? label : `<a href="${href}" target="_blank" rel="noopener noreferrer">${label}</a>`;
};
const image = (alt: string, url: string) => {
  const src = urlAttr(url, 'image');
  return src === undefined ? alt : `<img src="${src}" alt="${alt}" />`;
};

function inline(text: string): string {
  const codes: string[] = [];
  let s = text.replace(/`([^`]+)`/g, (_, c: string) => {
    codes.push(`<code>${escapeHtml(c)}</code>`);
    return `\u0000${codes.length - 1}\u0000`;
  });
  s = escapeHtml(s);
  s = s.replace(/!\[([^\]]*)\]\(([^)\s]+)(?:\s+&quot;[^)]*&quot;)?\)/g, (_, alt: string, url: string) =>
    image(alt, url),
  );
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)(?:\s+&quot;[^)]*&quot;)?\)/g, (_, label: string, url: string) =>
    link(label, url),
  );
  s = s.replace(/(^|[\s(])(https?:\/\/[^\s<)]+)/g, (_, pre: string, url: string) => `${pre}${link(url, url)}`);
  s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>').replace(/__([^_]+)__/g, '<strong>$1</strong>');
  s = s
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
    .replace(/(^|\W)_([^_\s][^_]*)_(?=\W|$)/g, '$1<em>$2</em>');
  s = s.replace(/~~([^~]+)~~/g, '<del>$1</del>');
  // eslint-disable-next-line no-control-regex -- NUL-wrapped indexes hold code spans aside while marks are replaced
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => codes[Number(i)] ?? '');
}

const isTableSep = (line: string) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line);
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => inline(c.trim()));

export function markdownToHtml(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\s*$/.test(line)) {
      i++;
      continue;
    }
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i]!)) body.push(lines[i++]!);
      i++;
      out.push(`<pre><code>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(`<h${level}>${inline(heading[2]!.replace(/\s+#+\s*$/, ''))}</h${level}>`);
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push('<hr />');
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^\s*>\s?/, ''));
      out.push(`<blockquote>${markdownToHtml(body.join('\n'))}</blockquote>`);
      continue;
    }
    const listMatch = /^\s*([-*+]|\d+[.)])\s+/.exec(line);
    if (listMatch) {
      const ordered = /\d/.test(listMatch[1]!);
      const items: string[] = [];
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]!)) {
        items.push(`<li>${inline(lines[i]!.replace(/^\s*([-*+]|\d+[.)])\s+/, ''))}</li>`);
        i++;
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.join('')}</${tag}>`);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && isTableSep(lines[i + 1]!)) {
      const head = cells(line);
      i += 2;
      const rows: string[] = [];
      while (i < lines.length && lines[i]!.includes('|') && !/^\s*$/.test(lines[i]!)) {
        rows.push(
          `<tr>${cells(lines[i]!)
            .map((c) => `<td>${c}</td>`)
            .join('')}</tr>`,
        );
        i++;
      }
      out.push(
        `<table><thead><tr>${head.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`,
      );
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      !/^\s*$/.test(lines[i]!) &&
      !/^(#{1,6}\s|\s*```|\s*>|\s*([-*+]|\d+[.)])\s+)/.test(lines[i]!)
    ) {
      para.push(inline(lines[i]!));
      i++;
    }
    out.push(`<p>${para.join('<br />')}</p>`);
  }
  return out.join('\n');
}

/** Content whose first non-blank character opens a tag is treated as HTML. */
export function looksLikeHtml(content: string): boolean {
  return /^\s*<[a-zA-Z!/]/.test(content);
}

/** How content is written: a message says so; settings text (`auto`) is HTML when it opens with a tag. */
export type ContentFormat = 'markdown' | 'html' | 'auto';

/** Markdown or HTML content rendered to sanitized HTML, safe for innerHTML. */
export function renderContent(content: string, format: ContentFormat = 'auto'): string {
  const html = format === 'html' || (format === 'auto' && looksLikeHtml(content));
  return sanitizeHtml(html ? content : markdownToHtml(content));
}
