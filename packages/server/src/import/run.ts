import type { Logger } from 'pino';
import type { Db } from '../db/connect.js';
import { backfillUserIdentities } from '../db/migrations/0010_user_identities.js';
import { sealSecretsAtRest } from '../db/secrets-at-rest.js';
import type { SecretBox } from '../lib/secret-box.js';
import { copyTable, type CopyOptions, type TableSpec } from './copy.js';
import { zeroOffsets, type MapContext, type Offsets } from './context.js';
import { withRollback } from './dry-run.js';
import { checkinsSpec } from './map-checkins.js';
import { detectSource, type SourceKind } from './detect.js';
import { channelsSpec, logsSpec, midjourneysSpec, quotaDataSpec, tasksSpec } from './map-gateway.js';
import { redemptionsSpec, tokensSpec, topUpsSpec, usersSpec } from './map-accounts.js';
import { modelsSpec, vendorsSpec } from './map-registry.js';
import { subscriptionOrdersSpec, subscriptionPlansSpec, userSubscriptionsSpec } from './map-subscriptions.js';
import {
  mergeOffsets,
  readMarker,
  sourceFingerprint,
  targetHasData,
  writeMarker,
  type ImportMarker,
  type ResolvedUsers,
} from './marker.js';
import { twoFactorBackupCodesSpec, twoFactorSpec, usersWithSourceTwoFactor } from './map-twofa.js';
import { copyOptions } from './options.js';
import { TableReport } from './report.js';
import { openSource, type SourceDb } from './source.js';
import { RefusedError } from './refused.js';
import { planItems, subscriptionItems } from './subscription-items.js';
import { checkSums, sourceSums, type QuotaCheck } from './sums.js';
import { creditMergedUsers, resolveUsers, type UserMapping } from './users-map.js';

export { RefusedError } from './refused.js';

/** new-api's root role. */
const ROOT_ROLE = 100;

export interface ImportOptions {
  from: string;
  /** Tollway's main database, migrated to the latest version. */
  target: Db;
  /** Tollway's log database (LOG_SQL_DSN) when it is separate; else the main one. */
  logTarget?: Db;
  box: SecretBox;
  log: Logger;
  merge?: boolean;
  /** On a merge: which source users join which target users, or take another name. */
  users?: UserMapping;
  /** new-api's LOG_SQL_DSN: the database holding its logs, when not the main one. */
  logsFrom?: string;
  /** Unix seconds: only logs created at or after it; -1 no logs. */
  logsSince?: number;
  dryRun?: boolean;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
}

export interface ImportResult {
  source: SourceKind;
  offsets: Offsets;
  /** Merge into a target that already had data, or a re-run of the same import. */
  mode: 'fresh' | 'rerun' | 'merge';
  reports: TableReport[];
  quota: QuotaCheck[];
  written: number;
  /** A dry run: everything above was counted by a real run that was then undone. */
  dryRun: boolean;
}

/**
 * Imports a new-api or one-api database into Tollway's; idempotent (a second run writes nothing). A dry run is the
 * same run inside transactions that are rolled back (the target must be migrated; see dry-run.ts).
 */
export async function runImport(opts: ImportOptions): Promise<ImportResult> {
  const src = await openSource(opts.from);
  try {
    if (!opts.dryRun) return await importFrom(src, opts, false);
    return await withRollback(opts.target, opts.logTarget, (target, logTarget) =>
      importFrom(src, { ...opts, target, logTarget }, true),
    );
  } finally {
    await src.close();
  }
}

const mapsUsers = (m: UserMapping | undefined) =>
  !!m && (!!m.mergeRoot || Object.keys(m.mergeUsers ?? {}).length > 0 || Object.keys(m.renameUsers ?? {}).length > 0);

async function importFrom(src: SourceDb, opts: ImportOptions, dryRun: boolean): Promise<ImportResult> {
  const { target, box } = opts;
  const logTarget = opts.logTarget ?? target;
  const write = opts.progress ?? (() => undefined);
  const kind = detectSource(src.tables);
  write(`source: ${kind.product}, ${kind.version} (${src.dialect})`);
  const fingerprint = await sourceFingerprint(src, kind);
  const marker = await readMarker(target, fingerprint);
  let mode: ImportResult['mode'] = 'fresh';
  let offsets = zeroOffsets();
  if (marker) {
    mode = 'rerun';
    offsets = marker.offsets;
  } else if (await targetHasData(target)) {
    if (!opts.merge) {
      throw new RefusedError(
        'the Tollway database already holds users, channels or tokens that did not come from this source; run with --merge to add the source after them (see docs/switching-from-new-api.md)',
      );
    }
    mode = 'merge';
    offsets = { ...(await mergeOffsets(target)), logs: (await mergeOffsets(logTarget)).logs };
  }
  if (mode !== 'merge' && !marker && mapsUsers(opts.users))
    throw new RefusedError(
      '--merge-root, --merge-user and --rename-user apply to a merge (--merge into a Tollway that has users)',
    );
  let users: ResolvedUsers | undefined = marker?.users;
  if (mode === 'merge') users = await resolveUsers(src, target, opts.users ?? {});
  // Every refusal above came before any write. This checks CRYPTO_SECRET against the target before the import
  // writes (it also seals plaintext left there, as a start of Tollway would).
  await sealSecretsAtRest(target, box, opts.log);
  let current: ImportMarker | undefined = marker;
  if (!marker) {
    current = {
      product: kind.product,
      version: kind.version,
      offsets,
      merge: mode === 'merge',
      started_at: Math.floor(Date.now() / 1000),
      ...(users ? { users } : {}),
    };
    await writeMarker(target, fingerprint, current);
  }
  if (mode !== 'fresh') write(`${mode}: ids shifted by ${JSON.stringify(offsets)}`);
  const credited = current ? await creditMergedUsers(src, target, fingerprint, current) : [];

  const before = await sourceSums(src.kysely, src.tables);
  const ctx: MapContext = {
    box,
    product: kind.product,
    merging: mode === 'merge' || (marker?.merge ?? false),
    off: offsets,
    channelNames: new Map(),
    abilities: new TableReport('abilities'),
    mergedUsers: new Map(Object.entries(users?.merged ?? {}).map(([k, v]) => [Number(k), v])),
    renamedUsers: new Map(Object.entries(users?.renamed ?? {})),
  };
  const copy: CopyOptions = { write, dryRun };
  const reports = new Map<string, TableReport>();
  const run = async (spec: TableSpec, db: Db = target, from: SourceDb = src) =>
    reports.set(spec.target, await copyTable(from, db, spec, copy));

  await run(usersSpec(ctx));
  reports.get('users')?.done.push(...credited);
  await backfillUserIdentities(target.kysely as never);
  await run(twoFactorSpec(ctx));
  await run(twoFactorBackupCodesSpec(ctx, await usersWithSourceTwoFactor(src, target, ctx)));
  await run(tokensSpec(ctx));
  await run(channelsSpec(ctx));
  reports.set('abilities', await abilitiesReport(src, ctx.abilities));
  // Only a fresh import writes over Tollway's values; a re-run or a merge adds missing keys.
  reports.set('options', await copyOptions(src, target, box, mode !== 'fresh'));
  await run(redemptionsSpec(ctx));
  await run(topUpsSpec(ctx));
  await run(checkinsSpec(ctx));
  await run(subscriptionPlansSpec(ctx, await planItems(src)));
  await run(userSubscriptionsSpec(ctx, await subscriptionItems(src)));
  await run(subscriptionOrdersSpec(ctx));
  await run(midjourneysSpec(ctx));
  await run(tasksSpec(ctx));
  await run(quotaDataSpec(ctx));
  await run(vendorsSpec(ctx));
  await run(modelsSpec(ctx));
  if ((opts.logsSince ?? 0) >= 0) {
    const logSource = opts.logsFrom ? await openSource(opts.logsFrom) : src;
    try {
      await run(logsSpec(ctx, opts.logsSince ?? 0), logTarget, logSource);
    } finally {
      if (logSource !== src) await logSource.close();
    }
  } else write('logs: not imported (--no-logs)');

  await markSetUp(target, kind);
  // Access tokens, webhook secrets and secret options are sealed as Tollway seals them at start.
  await sealSecretsAtRest(target, box, opts.log);
  const quota = await checkSums(target.kysely, before, offsets, reports, mode === 'rerun');
  const list = [...reports.values()];
  const written = list.reduce((n, r) => n + r.written, 0);
  return { source: kind, offsets, mode, reports: list, quota, written, dryRun };
}

/** An imported database with a root user is set up: /setup is not offered again. */
async function markSetUp(target: Db, kind: SourceKind): Promise<void> {
  const k = target.kysely;
  if (await k.selectFrom('setups').select('id').executeTakeFirst()) return;
  const root = await k.selectFrom('users').select('id').where('role', '=', ROOT_ROLE).executeTakeFirst();
  if (!root) return;
  await k
    .insertInto('setups')
    .values({ id: 1, version: `imported from ${kind.product}`, initialized_at: Math.floor(Date.now() / 1000) })
    .execute();
}

/** The source's ability rows are not copied: Tollway rebuilds them from the channels (one per group × model). */
async function abilitiesReport(src: SourceDb, report: TableReport): Promise<TableReport> {
  if (!src.tables.has('abilities')) return report;
  const row = (await src.kysely
    .selectFrom('abilities')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst()) as { n: unknown } | undefined;
  report.read = Number(row?.n ?? 0);
  return report;
}
