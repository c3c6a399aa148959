import { normalizeOptionValue, resolveOptionKey } from '@tollway/shared';
import type { Db } from '../db/connect.js';
import type { SecretBox } from '../lib/secret-box.js';
import { sensitiveWordsRefusal } from '../lib/sensitive-words.js';
import { TableReport } from './report.js';
import type { SourceDb } from './source.js';
import { text } from './values.js';

/**
 * Copies the source's options Tollway knows (values checked as the settings API checks them). Unknown keys and
 * invalid values are listed in the report, never stored. A fresh import writes the source's value over Tollway's;
 * with `keepTarget` (a re-run or a merge) a key the target already has keeps its value.
 */
export async function copyOptions(src: SourceDb, dst: Db, box: SecretBox, keepTarget: boolean): Promise<TableReport> {
  const report = new TableReport('options');
  if (!src.tables.has('options')) return report;
  // The options table is small (a few hundred keys): read at once.
  const rows = (await src.kysely.selectFrom('options').selectAll().execute()) as Record<string, unknown>[];
  const have = new Map(
    (await dst.kysely.selectFrom('options').select(['key', 'value']).execute()).map((r) => [r.key, r.value ?? '']),
  );
  for (const r of rows) {
    report.read++;
    // new-api's name of a Tollway option (checkin_setting.*) is stored under Tollway's.
    const sourceKey = text(r.key);
    const key = resolveOptionKey(sourceKey) ?? sourceKey;
    const checked = normalizeOptionValue(key, text(r.value));
    if (!checked.ok) {
      report.skip(
        checked.message.startsWith('unknown option') ? 'unknown to Tollway' : `invalid for Tollway: ${checked.message}`,
        sourceKey,
      );
      continue;
    }
    // Patterns are refused as the settings API refuses them: only what the linear-time engine runs.
    const unsafe = key === 'SensitiveWords' ? sensitiveWordsRefusal(checked.value) : undefined;
    if (unsafe) {
      report.skip(`invalid for Tollway: ${unsafe.message}`, sourceKey);
      continue;
    }
    // Secret options are sealed in the target when CRYPTO_SECRET is set: compared opened.
    const stored = have.get(key);
    const current = stored === undefined ? undefined : box.open(stored);
    if (current === checked.value || (current !== undefined && keepTarget)) {
      report.present++;
      continue;
    }
    const q = dst.kysely.insertInto('options').values({ key, value: checked.value });
    if (dst.dialect === 'mysql') await q.onDuplicateKeyUpdate({ value: checked.value }).execute();
    else await q.onConflict((oc) => oc.column('key').doUpdateSet({ value: checked.value })).execute();
    report.written++;
  }
  return report;
}
