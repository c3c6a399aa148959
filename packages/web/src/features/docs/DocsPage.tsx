import { useQuery } from '@tanstack/react-query';
import { Card, Menu, Skeleton } from 'antd';
import { useEffect, useMemo, useRef, type MouseEvent } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { RichContent } from '../../components/RichContent';
import { NotFound } from '../../layout/NotFound';
import { docPathOf, docsNavigation, headingSlug, reflowMarkdown } from './markdown-docs';
import './docs.css';

/** Where the server serves the docs folder's Markdown (modules/docs/routes.ts). */
const SOURCE_PREFIX = '/docs-src/';
/** Where this page lives: a document's URL is this plus its path in the docs folder. */
const PAGE_PREFIX = '/docs/';

class DocMissing extends Error {}

/** One document's Markdown, fetched as it is (not the API's envelope). */
function useDoc(path: string | undefined) {
  return useQuery({
    queryKey: ['docs', path],
    enabled: path !== undefined,
    staleTime: Infinity,
    retry: (count, err) => !(err instanceof DocMissing) && count < 2,
    queryFn: async () => {
      const res = await fetch(`${SOURCE_PREFIX}${path}`);
      if (res.status === 404) throw new DocMissing(path);
      if (!res.ok) throw new Error(`GET ${SOURCE_PREFIX}${path}: ${res.status}`);
      return res.text();
    },
  });
}

/** Gives each heading its anchor (as on GitHub) and sends links that leave the docs folder nowhere. */
function anchorHeadings(root: HTMLElement, docPath: string): void {
  const seen = new Map<string, number>();
  for (const h of root.querySelectorAll<HTMLElement>('h1, h2, h3, h4, h5, h6')) {
    const base = headingSlug(h.textContent ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    h.id = n === 0 ? base : `${base}-${n}`;
  }
  const page = new URL(`${PAGE_PREFIX}${docPath}`, window.location.origin);
  for (const a of root.querySelectorAll<HTMLAnchorElement>('a[href]')) {
    const href = a.getAttribute('href')!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
    const target = new URL(href, page);
    if (target.pathname.startsWith(PAGE_PREFIX) && (target.pathname.endsWith('.md') || href.startsWith('#'))) {
      a.removeAttribute('target');
      a.href = target.pathname + target.hash;
    } else {
      // A file of the repository beside the docs (the changelog, the bench results): not served here.
      a.removeAttribute('href');
      a.removeAttribute('target');
      a.title = href;
    }
  }
}

/** /docs/*: this version's documentation, rendered from the docs folder's Markdown with the console's sanitizer. */
export default function DocsPage() {
  const splat = useParams()['*'];
  const docPath = docPathOf(splat);
  const location = useLocation();
  const navigate = useNavigate();
  const doc = useDoc(docPath);
  const index = useDoc('README.md');
  const body = useRef<HTMLDivElement>(null);

  const markdown = useMemo(() => (doc.data === undefined ? undefined : reflowMarkdown(doc.data)), [doc.data]);
  const nav = useMemo(() => (index.data ? docsNavigation(index.data) : []), [index.data]);

  useEffect(() => {
    if (!body.current || markdown === undefined || docPath === undefined) return;
    anchorHeadings(body.current, docPath);
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (target) target.scrollIntoView();
    else window.scrollTo(0, 0);
  }, [markdown, docPath, location.hash]);

  /** Links inside the docs stay in the page (no reload, no new tab). */
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const a = (e.target as HTMLElement).closest('a');
    if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target === '_blank') return;
    const href = a.getAttribute('href');
    if (!href || !href.startsWith(PAGE_PREFIX)) return;
    e.preventDefault();
    void navigate(href);
  };

  if (docPath === undefined || doc.error instanceof DocMissing) return <NotFound />;
  return (
    <div className="tw-page tw-docs" data-testid="docs-page">
      <nav className="tw-docs-nav" data-testid="docs-nav">
        <Menu
          mode="inline"
          selectedKeys={[docPath]}
          onClick={({ key }) => void navigate(`${PAGE_PREFIX}${key}`)}
          items={[
            { key: 'README.md', label: 'Documentation' },
            ...nav.map((g) => ({
              type: 'group' as const,
              key: g.title,
              label: g.title,
              children: g.items.map((i) => ({ key: i.path, label: i.label })),
            })),
          ]}
        />
      </nav>
      <Card className="tw-docs-body">
        {markdown === undefined ? (
          <Skeleton active paragraph={{ rows: 10 }} />
        ) : (
          <div ref={body} onClick={onClick}>
            <RichContent content={markdown} format="markdown" testId="docs-content" />
          </div>
        )}
      </Card>
    </div>
  );
}
