import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPathOf, docsNavigation, headingSlug, reflowMarkdown } from '../src/features/docs/markdown-docs';

const docsIndex = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/README.md'), 'utf8');

describe('the docs page reads the Markdown', () => {
  it('joins soft-wrapped lines of paragraphs and list items, never code, headings or tables', () => {
    const md = [
      '# Title',
      'one line',
      'and its wrap',
      '',
      '1. **In.** a step',
      '   continued here',
      '2. next',
      '',
      '```',
      'code line',
      'kept',
      '```',
      '| a | b |',
      '|---|---|',
      '| c | d |',
      '<!-- a comment -->',
    ].join('\n');
    expect(reflowMarkdown(md).split('\n')).toEqual([
      '# Title',
      'one line and its wrap',
      '',
      '1. **In.** a step continued here',
      '2. next',
      '',
      '```',
      'code line',
      'kept',
      '```',
      '| a | b |',
      '|---|---|',
      '| c | d |',
      '',
    ]);
  });

  it('anchors headings as GitHub does', () => {
    expect(headingSlug('One relay call, stage by stage')).toBe('one-relay-call-stage-by-stage');
    expect(headingSlug('Environment: new-api → Tollway')).toBe('environment-new-api--tollway');
    expect(headingSlug('Limits (requests and tokens per minute)')).toBe('limits-requests-and-tokens-per-minute');
  });

  it('makes the side navigation from docs/README.md, pages of the docs folder only', () => {
    const nav = docsNavigation(docsIndex);
    expect(nav.length).toBeGreaterThan(4);
    const paths = nav.flatMap((g) => g.items.map((i) => i.path));
    expect(paths).toContain('install/environment.md');
    expect(paths).toContain('contributing/architecture.md');
    expect(paths.every((p) => !p.startsWith('..'))).toBe(true);
  });

  it('maps the page URL to a document', () => {
    expect(docPathOf(undefined)).toBe('README.md');
    expect(docPathOf('')).toBe('README.md');
    expect(docPathOf('install/install.md')).toBe('install/install.md');
    expect(docPathOf('../package.json')).toBeUndefined();
    expect(docPathOf('../x.md')).toBeUndefined();
    expect(docPathOf('install/')).toBeUndefined();
  });
});
