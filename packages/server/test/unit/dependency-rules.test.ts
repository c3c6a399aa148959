import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../../..');
const config = path.join(root, '.dependency-cruiser.cjs');
const cli = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const fixture = path.join(root, 'packages/server/test/fixtures/deps');
/** The folders `npm run deps` checks. */
const SOURCES = ['packages/shared/src', 'packages/server/src', 'packages/web/src'];
/** Cruising the whole tree parses every source file. */
const CRUISE_TIMEOUT_MS = 120_000;

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/** Runs dependency-cruiser with the repository's config from `cwd`; the violations it reports. */
function cruise(cwd: string, targets: string[]): Violation[] {
  const res = spawnSync(process.execPath, [cli, '--config', config, '--output-type', 'json', ...targets], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (!res.stdout) throw new Error(`dependency-cruiser failed: ${res.stderr}`);
  const out = JSON.parse(res.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return out.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('dependency rules (.dependency-cruiser.cjs, npm run deps)', () => {
  it(
    "report a type-only cycle, a module importing the relay, a web feature importing another, the ground or accounting reaching up, the relay entered past its entry or holding a stray top-level file, a floor or a module rule importing http/, ir/ importing a provider, a provider importing another provider's adaptor, a descriptor imported past the registry, http/ importing a module, the web's i18n/ importing a feature, and nothing else",
    () => {
      const found = cruise(fixture, ['packages']);
      expect(found).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            rule: 'no-cycle',
            from: expect.stringMatching(/^packages\/server\/src\/core\/price-(row|table)\.ts$/),
          }),
          {
            rule: 'modules-not-relay',
            from: 'packages/server/src/modules/widgets/service.ts',
            to: 'packages/server/src/relay/index.ts',
          },
          {
            rule: 'feature-not-feature',
            from: 'packages/web/src/features/alpha/page.ts',
            to: 'packages/web/src/features/beta/api.ts',
          },
          {
            rule: 'ground-imports-no-floor',
            from: 'packages/server/src/lib/clock.ts',
            to: 'packages/server/src/modules/widgets/name.ts',
          },
          {
            rule: 'accounting-stands-on-core',
            from: 'packages/server/src/accounting/bill.ts',
            to: 'packages/server/src/relay/index.ts',
          },
          {
            rule: 'relay-through-its-entry',
            from: 'packages/server/src/app.ts',
            to: 'packages/server/src/relay/pipeline/engine.ts',
          },
          {
            rule: 'relay-top-level-is-the-entry',
            from: 'packages/server/src/relay/stray.ts',
            to: 'packages/server/src/relay/pipeline/engine.ts',
          },
          {
            rule: 'floors-not-http',
            from: 'packages/server/src/relay/pipeline/respond.ts',
            to: 'packages/server/src/http/errors.ts',
          },
          {
            rule: 'module-rules-not-http',
            from: 'packages/server/src/modules/widgets/service.ts',
            to: 'packages/server/src/http/errors.ts',
          },
          {
            rule: 'ir-imports-no-provider',
            from: 'packages/server/src/relay/ir/wire.ts',
            to: 'packages/server/src/relay/providers/acme/convert.ts',
          },
          {
            rule: 'provider-not-another-adaptor',
            from: 'packages/server/src/relay/providers/zeta/descriptor.ts',
            to: 'packages/server/src/relay/providers/acme/adaptor.ts',
          },
          {
            rule: 'descriptors-through-the-registry',
            from: 'packages/server/src/relay/pipeline/pick.ts',
            to: 'packages/server/src/relay/providers/acme/descriptor.ts',
          },
          {
            rule: 'http-imports-no-module',
            from: 'packages/server/src/http/register.ts',
            to: 'packages/server/src/modules/widgets/name.ts',
          },
          {
            rule: 'web-floors-not-features',
            from: 'packages/web/src/i18n/namespaces.ts',
            to: 'packages/web/src/features/beta/api.ts',
          },
        ]),
      );
      // The relay importing a module, a feature importing its own files, the app importing the relay's entry, a
      // module's routes file using http/ and its service the route type, a descriptor importing its own adaptor,
      // a provider reusing another's converter, the registry importing the descriptors and the web's app/ importing a
      // feature, are allowed.
      expect(found.filter((v) => v.rule !== 'no-cycle')).toHaveLength(13);
    },
    CRUISE_TIMEOUT_MS,
  );

  it(
    'find no violation in the real tree',
    () => {
      expect(cruise(root, SOURCES)).toEqual([]);
    },
    CRUISE_TIMEOUT_MS,
  );
});
