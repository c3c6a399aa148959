/** @vitest-environment jsdom */
import { describe, expect, it } from 'vitest';
import { renderContent } from '../src/lib/markdown';
import { ALLOWED_TAGS, safeUrl, sanitizeHtml } from '../src/lib/sanitize';

/** Attributes that can run script, load active content or restyle the page; none may survive. */
const DANGEROUS_ATTRS = [
  'style',
  'class',
  'id',
  'name',
  'srcdoc',
  'srcset',
  'formaction',
  'action',
  'xlink:href',
  'background',
  'poster',
  'data',
  'codebase',
  'http-equiv',
];
const URL_SCHEMES_OK = ['http:', 'https:', 'mailto:'];

/**
 * The sanitized markup parsed again: every element is on the allow-list, no attribute is an event handler or
 * one of the dangerous ones, and every href/src is http(s), mailto or relative as a browser reads it.
 */
function expectInert(html: string): void {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  for (const el of tpl.content.querySelectorAll('*')) {
    expect(ALLOWED_TAGS, `<${el.tagName.toLowerCase()}> in ${html}`).toContain(el.tagName.toLowerCase());
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name, html).not.toMatch(/^on/i);
      expect(DANGEROUS_ATTRS, html).not.toContain(attr.name.toLowerCase());
      if (attr.name === 'href' || attr.name === 'src') {
        expect(URL_SCHEMES_OK, `${attr.name}=${JSON.stringify(attr.value)}`).toContain(
          new URL(attr.value, 'https://site.invalid/').protocol,
        );
      }
    }
  }
  // Text may mention anything; no tag outside the allow-list may appear, even one the parser would drop.
  expect(html.toLowerCase()).not.toMatch(/<(script|iframe|svg|math|object|embed|form|meta|base|style|link)\b/);
}

/** Payloads an administrator (or anyone who can write content) might try. */
const HOSTILE_HTML = [
  "<img src=x onerror=\"fetch('/api/option/',{method:'PUT',body:'{}'});window.__pwned=1\">",
  '<svg onload=alert(1)><circle r=10 /></svg>',
  '<svg><a xlink:href="javascript:alert(1)"><text y="20">x</text></a></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
  '<script>window.__pwned=1</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="\u0001javascript:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<a href="java\tscript:alert(1)">x</a>',
  '<a href="java&#x09;script:alert(1)">x</a>',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href="\u0000javascript:alert(1)">x</a>',
  '<a href="\u200bjavascript:alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html,<script>alert(1)</script>">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
  '<img src="javascript:alert(1)">',
  '<img srcset="javascript:alert(1) 1x">',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<div style="width:expression(alert(1))">x</div>',
  '<p class="ant-modal-wrap" id="root">x</p>',
  '<form action="/api/option/" method="post"><input name="key" value="x"><button formaction="javascript:alert(1)">go</button></form>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:/">',
  '<link rel="stylesheet" href="//evil.example/x.css">',
  '<style>@import "//evil.example/x.css";</style>',
  '<details open ontoggle=alert(1)>x</details>',
  '<body onload=alert(1)>',
  '<video><source onerror=alert(1)></video>',
  '<audio src=x onerror=alert(1)>',
  '<input autofocus onfocus=alert(1)>',
  '<marquee onstart=alert(1)>x</marquee>',
  '<a href="#" onclick="alert(1)">x</a>',
  '<img src=x:alert(1) onerror=eval(src)>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<template><img src=x onerror=alert(1)></template>',
  '<a href="https://ok.example/" target="_self" rel="opener">x</a>',
  '"><img src=x onerror=alert(1)>',
  '<img src="x` `<script>alert(1)</script>"` `>',
];

describe('sanitizeHtml', () => {
  it.each(HOSTILE_HTML)('leaves nothing active of %j', (payload) => {
    expectInert(sanitizeHtml(payload));
  });

  it('refuses hidden schemes exactly: the link keeps its text, loses its address', () => {
    expect(sanitizeHtml('<a href="\u0001javascript:alert(1)">x</a>')).toBe('<a>x</a>');
    expect(sanitizeHtml('<a href="java\tscript:alert(1)">x</a>')).toBe('<a>x</a>');
    expect(sanitizeHtml('<a href="data:text/html,x">x</a>')).toBe('<a>x</a>');
    expect(sanitizeHtml('<img src=x onerror=alert(1)>')).toBe('<img src="x">');
    expect(sanitizeHtml('<svg onload=alert(1)>')).toBe('');
    expect(sanitizeHtml('<iframe srcdoc="<b>x</b>"></iframe>')).toBe('');
  });

  it('keeps text markup, tables, images and links; links open in a new tab without opener or referrer', () => {
    const html = sanitizeHtml(
      '<h2 align="center">Hi</h2><p><b>bold</b> <em>em</em> <code>x</code></p><table><tbody><tr><td colspan="2">c</td></tr></tbody></table>' +
        '<img src="https://img.example/a.png" alt="a" width="10"><a href="https://site.example/x?a=1&amp;b=2">site</a> <a href="/app/wallet">wallet</a> <a href="mailto:ops@example.com">mail</a>',
    );
    expect(html).toBe(
      '<h2 align="center">Hi</h2><p><b>bold</b> <em>em</em> <code>x</code></p><table><tbody><tr><td colspan="2">c</td></tr></tbody></table>' +
        '<img src="https://img.example/a.png" alt="a" width="10">' +
        '<a href="https://site.example/x?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">site</a> ' +
        '<a href="/app/wallet" target="_blank" rel="noopener noreferrer">wallet</a> ' +
        '<a href="mailto:ops@example.com" target="_blank" rel="noopener noreferrer">mail</a>',
    );
  });
});

describe('renderContent: the format decides how content is read', () => {
  const HOSTILE_MARKDOWN = [
    '[x](javascript:alert(1))',
    '[x](\u0001javascript:alert(1))',
    '[x]( javascript:alert(1))',
    '[x](JAVASCRIPT:alert(1))',
    '[x](data:text/html,<script>alert(1)</script>)',
    '[x](vbscript:msgbox(1))',
    '![x](javascript:alert(1))',
    '![x](data:text/html;base64,PHNjcmlwdD4=)',
    '[x](https://ok.example/" onmouseover="alert(1))',
    '<img src=x onerror=alert(1)>',
    '**<svg onload=alert(1)>**',
    '`<script>alert(1)</script>`',
    '```\n<script>alert(1)</script>\n```',
    '> <iframe srcdoc="<script>alert(1)</script>">',
    '| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | [y](javascript:alert(1)) |',
  ];

  it.each(HOSTILE_MARKDOWN)('markdown %j renders inert', (source) => {
    expectInert(renderContent(source, 'markdown'));
  });

  it('a Markdown message that starts with a tag shows the tag as text', () => {
    const html = renderContent('<img src=x onerror="window.__pwned=1">', 'markdown');
    expect(html).toBe('<p>&lt;img src=x onerror="window.__pwned=1"&gt;</p>');
  });

  it('unsafe Markdown links keep their label only; safe ones become links', () => {
    expect(renderContent('[x](\u0001javascript:alert(1))', 'markdown')).toBe('<p>x)</p>');
    expect(renderContent('[docs](https://docs.example/a)', 'markdown')).toBe(
      '<p><a href="https://docs.example/a" target="_blank" rel="noopener noreferrer">docs</a></p>',
    );
    expect(renderContent('![logo](https://img.example/l.png)', 'markdown')).toBe(
      '<p><img src="https://img.example/l.png" alt="logo"></p>',
    );
  });

  it('an HTML message is sanitized; settings text is HTML only when it opens with a tag', () => {
    expect(renderContent('<b onclick="alert(1)">hi</b>', 'html')).toBe('<b>hi</b>');
    expect(renderContent('<p>hi <img src=x onerror=alert(1)></p>', 'auto')).toBe('<p>hi <img src="x"></p>');
    expect(renderContent('**hi** <b>x</b>', 'auto')).toBe('<p><strong>hi</strong> &lt;b&gt;x&lt;/b&gt;</p>');
  });
});

describe('safeUrl', () => {
  const REFUSED = [
    'javascript:alert(1)',
    '\u0001javascript:alert(1)',
    '\u0000javascript:alert(1)',
    ' javascript:alert(1)',
    '\njavascript:alert(1)',
    'java\tscript:alert(1)',
    'java\nscript:alert(1)',
    'java\rscript:alert(1)',
    '\u00a0javascript:alert(1)',
    '\ufeffjavascript:alert(1)',
    'JavaScript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html,<script>alert(1)</script>',
    'data:image/png;base64,iVBORw0KGgo=',
    'file:///etc/passwd',
    'blob:https://site.example/uuid',
    'ftp://files.example/x',
    '',
    '   ',
  ];
  it.each(REFUSED)('refuses %j for links, images and pages', (url) => {
    expect(safeUrl(url, 'link')).toBeUndefined();
    expect(safeUrl(url, 'image')).toBeUndefined();
    expect(safeUrl(url, 'page')).toBeUndefined();
  });

  it('accepts http(s), mailto for links only, relative addresses except for pages', () => {
    expect(safeUrl('https://site.example/a', 'link')).toBe('https://site.example/a');
    expect(safeUrl('  http://site.example/a\u0001', 'page')).toBe('http://site.example/a');
    expect(safeUrl('mailto:ops@example.com', 'link')).toBe('mailto:ops@example.com');
    expect(safeUrl('mailto:ops@example.com', 'image')).toBeUndefined();
    expect(safeUrl('/app/wallet', 'link')).toBe('/app/wallet');
    expect(safeUrl('img/a.png', 'image')).toBe('img/a.png');
    expect(safeUrl('/app/wallet', 'page')).toBeUndefined();
    expect(safeUrl('//evil.example/x', 'page')).toBeUndefined();
    expect(safeUrl(undefined, 'link')).toBeUndefined();
  });
});
