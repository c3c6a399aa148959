import { describe, expect, it } from 'vitest';
import { parseImportArgs } from '../../src/import/args.js';

describe('npm run import arguments: the user mapping of a merge', () => {
  it('reads --merge-root, repeated --merge-user and --rename-user pairs', () => {
    const args = parseImportArgs([
      '--from',
      'old.db',
      '--merge',
      '--merge-root',
      '--merge-user',
      'alice=alice2',
      '--merge-user=bob=robert',
      '--rename-user',
      'carol=carol-newapi',
    ]);
    expect(args).toMatchObject({
      merge: true,
      mergeRoot: true,
      mergeUsers: { alice: 'alice2', bob: 'robert' },
      renameUsers: { carol: 'carol-newapi' },
    });
  });

  it('refuses a mapping without --merge, a pair that is not SOURCE=TARGET, and a user both merged and renamed', () => {
    expect(() => parseImportArgs(['--from', 'a.db', '--merge-root'])).toThrow('need --merge');
    expect(() => parseImportArgs(['--from', 'a.db', '--merge', '--rename-user', 'carol'])).toThrow('SOURCE=TARGET');
    expect(() => parseImportArgs(['--from', 'a.db', '--merge', '--merge-user', '=x'])).toThrow('SOURCE=TARGET');
    expect(() => parseImportArgs(['--from', 'a.db', '--merge', '--merge-user', 'a=b', '--rename-user', 'a=c'])).toThrow(
      'both merged and renamed',
    );
  });
});
