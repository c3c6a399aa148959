// The floors and their dependency rule (README "Architecture"); `npm run deps` checks it in `npm test`.
// Type-only imports count: a cycle through types still ties the files together.
const SERVER = '^packages/server/src/';
/** The ground every floor may stand on: lib/, db/ and the leaf file config.ts. */
const GROUND = 'lib/|db/|config\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'relay-through-its-entry',
      severity: 'error',
      comment:
        'The relay has one file at its top level, index.ts, its entry; code outside relay/ imports only that file.',
      from: { path: SERVER, pathNot: `${SERVER}relay/` },
      to: { path: `${SERVER}relay/`, pathNot: `${SERVER}relay/index\\.ts$` },
    },
    {
      name: 'relay-top-level-is-the-entry',
      severity: 'error',
      comment:
        'Every relay file but the entry lives in a stage folder (entry, pipeline, upstream, billing, limits, ...).',
      from: { path: `${SERVER}relay/[^/]+$`, pathNot: `${SERVER}relay/index\\.ts$` },
      to: {},
    },
    {
      name: 'floors-not-http',
      severity: 'error',
      comment: "http/ is the app's web layer: no floor below it (ground, core, accounting, import, relay) imports it.",
      from: { path: `${SERVER}(lib|db|core|accounting|import|relay)/` },
      to: { path: `${SERVER}http/` },
    },
    {
      name: 'module-rules-not-http',
      severity: 'error',
      comment:
        'A module reaches http/ from its routes files; its services and stores import at most the route declaration type.',
      from: { path: `${SERVER}modules/[^/]+/(?!routes)[^/]+$` },
      to: { path: `${SERVER}http/`, pathNot: `${SERVER}http/route\\.ts$` },
    },
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'No import cycles, type-only imports included.',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      name: 'modules-not-relay',
      severity: 'error',
      comment: 'Modules reach the relay only through interfaces in core set on AppContext at bootstrap.',
      from: { path: `${SERVER}modules/` },
      to: { path: `${SERVER}relay/` },
    },
    {
      name: 'core-stands-on-ground',
      severity: 'error',
      comment: 'core (options, routing table, hooks) imports only the ground and shared.',
      from: { path: `${SERVER}core/` },
      to: { path: `${SERVER}(?!core/|${GROUND})` },
    },
    {
      name: 'accounting-stands-on-core',
      severity: 'error',
      comment: 'accounting (ledgers, durable writer, account logs) imports only core, the ground and shared.',
      from: { path: `${SERVER}accounting/` },
      to: { path: `${SERVER}(?!accounting/|core/|${GROUND})` },
    },
    {
      name: 'import-stands-on-core',
      comment:
        'The new-api / one-api import (npm run import) writes through core, the ground and shared, never a module or the relay.',
      severity: 'error',
      from: { path: `${SERVER}import/` },
      to: { path: `${SERVER}(?!import/|core/|${GROUND})` },
    },
    {
      name: 'ground-imports-no-floor',
      severity: 'error',
      comment: 'lib and db are the ground: they import only the ground and shared.',
      from: { path: `${SERVER}(lib|db)/` },
      to: { path: `${SERVER}(?!${GROUND})` },
    },
    {
      name: 'shared-imports-no-package',
      severity: 'error',
      comment: 'packages/shared imports neither the server nor the web console.',
      from: { path: '^packages/shared/' },
      to: { path: '^packages/(server|web)/' },
    },
    {
      name: 'feature-not-feature',
      severity: 'error',
      comment: 'A web feature never imports another feature; shared pieces live in components/ or lib/.',
      from: { path: '^packages/web/src/features/([^/]+)/' },
      to: { path: '^packages/web/src/features/', pathNot: '^packages/web/src/features/$1/' },
    },
    {
      name: 'ir-imports-no-provider',
      severity: 'error',
      comment:
        "relay/ir/ is the neutral representation every provider converts to; a vendor's wire lives in its provider folder.",
      from: { path: `${SERVER}relay/ir/` },
      to: { path: `${SERVER}relay/providers/` },
    },
    {
      name: 'provider-not-another-adaptor',
      severity: 'error',
      comment:
        "A provider folder may reuse another's converter or helpers, never its adaptor or descriptor (the registry joins them).",
      from: { path: `${SERVER}relay/providers/([^/]+)/` },
      to: {
        path: `${SERVER}relay/providers/[^/]+/(adaptor|descriptor)\\.ts$`,
        pathNot: `${SERVER}relay/providers/$1/`,
      },
    },
    {
      name: 'descriptors-through-the-registry',
      severity: 'error',
      comment:
        'providers/registry.ts is the one list of providers: no other file imports a descriptor (use descriptorFor or formatFor).',
      from: { path: SERVER, pathNot: `${SERVER}relay/providers/registry\\.ts$` },
      to: { path: `${SERVER}relay/providers/[^/]+/descriptor\\.ts$` },
    },
    {
      name: 'http-imports-no-module',
      severity: 'error',
      comment:
        'http/ is the plumbing every module uses; what it needs from modules (authentication, the audit trail) the app gives it as hooks (RouteHooks).',
      from: { path: `${SERVER}http/` },
      to: { path: `${SERVER}modules/` },
    },
    {
      name: 'web-floors-not-features',
      severity: 'error',
      comment:
        "The web's i18n/, lib/ and components/ sit below the features and import none; what names every feature (the texts registry) lives in app/.",
      from: { path: '^packages/web/src/(i18n|lib|components)/' },
      to: { path: '^packages/web/src/features/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    // Absolute, so the rules also run from a fixture tree (packages/server/test/unit/dependency-rules.test.ts).
    tsConfig: { fileName: `${__dirname}/tsconfig.base.json` },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
