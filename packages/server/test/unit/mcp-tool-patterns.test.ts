import { describe, expect, it } from 'vitest';
import { mcpListOf as listOf, toolAllowed, wildcardMatch } from '@tollway/shared';
import { splitExposed } from '../../src/relay/mcp/permissions.js';

/** The MCP registry's tool lists: `*` patterns matched without a RegExp, deny over allow, names split once. */
describe('MCP tool patterns', () => {
  it.each([
    ['*', 'anything', true],
    ['*', '', true],
    ['echo', 'echo', true],
    ['echo', 'echo2', false],
    ['search_*', 'search_docs', true],
    ['search_*', 'research_docs', false],
    ['*_read', 'file_read', true],
    ['*_read', 'file_read_all', false],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxcyyb', false],
    ['.*', 'anything', false],
    ['(a+)+', 'aaaa', false],
  ])('%s matches %s: %s', (pattern, text, expected) => {
    expect(wildcardMatch(pattern, text)).toBe(expected);
  });

  it('stays fast on a pattern that would backtrack', () => {
    const started = Date.now();
    expect(wildcardMatch('*a*a*a*a*a*a*a*a*b', 'a'.repeat(2000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('lets the deny list win and an empty allow list allow all', () => {
    const allow = listOf('search_*, read_*\nlist');
    expect(allow).toEqual(['search_*', 'read_*', 'list']);
    expect(toolAllowed('search_web', allow, [])).toBe(true);
    expect(toolAllowed('delete_all', allow, [])).toBe(false);
    expect(toolAllowed('search_web', allow, ['search_w*'])).toBe(false);
    expect(toolAllowed('anything', [], [])).toBe(true);
    expect(toolAllowed('delete_all', [], listOf('delete_*'))).toBe(false);
  });

  it('splits an exposed name at the first separator, or not at all on /mcp/<server>', () => {
    expect(splitExposed('docs__search__deep', undefined)).toEqual({ server: 'docs', name: 'search__deep' });
    expect(splitExposed('__x', undefined)).toBeUndefined();
    expect(splitExposed('plain', undefined)).toBeUndefined();
    expect(splitExposed('a__b', 'docs')).toEqual({ server: 'docs', name: 'a__b' });
  });
});
