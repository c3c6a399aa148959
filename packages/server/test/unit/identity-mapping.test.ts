import { Role } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import {
  candidatesOf,
  mappingMode,
  mappingTableProblem,
  parseMappingTable,
  resolveGroup,
  resolveRole,
  type MappingRules,
} from '../../src/modules/identity/mapping.js';

const groups = new Set(['default', 'vip', 'staff']);
const exists = (g: string) => groups.has(g);
const rules = (over: Partial<MappingRules> = {}): MappingRules => ({
  groupMapping: { engineering: 'vip', 'cn=ops,ou=groups,dc=x': 'staff', ghosts: 'nowhere' },
  groupMode: 'explicit_only',
  roleMapping: { leads: 'admin', everyone: 'common', boss: 'root' },
  roleMode: 'explicit_only',
  ...over,
});

describe('identity mapping', () => {
  it('reads a claim string, number or array as external values', () => {
    expect(candidatesOf('engineering')).toEqual(['engineering']);
    expect(candidatesOf(42)).toEqual(['42']);
    expect(candidatesOf([' a ', '', { x: 1 }, 7, null, 'b'])).toEqual(['a', '7', 'b']);
    expect(candidatesOf(undefined)).toEqual([]);
    expect(candidatesOf(Array.from({ length: 1000 }, (_, i) => `g${i}`))).toHaveLength(256);
  });

  it('maps to an existing group only, first match in the provider order', () => {
    expect(resolveGroup(['x', 'engineering'], rules(), exists)).toBe('vip');
    expect(resolveGroup(['cn=ops,ou=groups,dc=x'], rules(), exists)).toBe('staff');
    // A mapping to a group that does not exist is skipped; never created.
    expect(resolveGroup(['ghosts'], rules(), exists)).toBe('');
    expect(resolveGroup(['ghosts', 'engineering'], rules(), exists)).toBe('vip');
    // explicit_only ignores a raw value even when it names a group; mapping_first takes it.
    expect(resolveGroup(['staff'], rules(), exists)).toBe('');
    expect(resolveGroup(['staff'], rules({ groupMode: 'mapping_first' }), exists)).toBe('staff');
    expect(resolveGroup(['unknown'], rules({ groupMode: 'mapping_first' }), exists)).toBe('');
  });

  it('gives administrator only by an explicit entry and never root', () => {
    expect(resolveRole(['leads'], rules())).toBe(Role.Admin);
    expect(resolveRole(['everyone'], rules())).toBe(Role.Common);
    expect(resolveRole(['boss'], rules())).toBe(0);
    expect(resolveRole(['admin'], rules({ roleMode: 'mapping_first' }))).toBe(0);
    expect(resolveRole(['100'], rules({ roleMode: 'mapping_first' }))).toBe(0);
    expect(resolveRole(['user'], rules({ roleMode: 'mapping_first' }))).toBe(Role.Common);
    expect(resolveRole(['user'], rules())).toBe(0);
  });

  it('checks and reads mapping tables', () => {
    expect(mappingTableProblem('')).toBe('');
    expect(mappingTableProblem('{"a":"b"}')).toBe('');
    expect(mappingTableProblem('[1]')).not.toBe('');
    expect(mappingTableProblem('{"a":1}')).not.toBe('');
    expect(mappingTableProblem('{')).not.toBe('');
    expect(parseMappingTable('{" a ":" b "}')).toEqual({ a: 'b' });
    expect(parseMappingTable('nope')).toEqual({});
    expect(Object.hasOwn(parseMappingTable('{}'), 'toString')).toBe(false);
    expect(mappingMode('Mapping_First')).toBe('mapping_first');
    expect(mappingMode('anything')).toBe('explicit_only');
  });
});
