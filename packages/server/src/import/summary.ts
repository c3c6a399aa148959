import type { ImportResult } from './run.js';

/**
 * What an import never carries, whatever the rows hold (listed in every summary; the per-row notes above it name
 * the rows that held a value).
 */
export const NEVER_CARRIED = [
  'users.discord_id, users.lark_id: Tollway has no Discord or Lark sign-in',
  'users.stripe_customer: Tollway does not keep Stripe customer ids',
  'users.last_login_at: Tollway keeps no last sign-in time',
  'users.invite_rebate_eligible: Tollway pays no invite rebates',
  'abilities: rebuilt from the channels, not copied',
  "subscription_pre_consume_records: new-api's per-request holds on plans (their amounts are in user_subscriptions.amount_used)",
  'options unknown to Tollway (listed under options)',
];

/** The final summary: source, mode, per-table counts with what was not mapped and why, the quota check. */
export function summaryLines(result: ImportResult): string[] {
  const dry = result.dryRun ? ' (dry run: nothing written; the counts are what a real run writes)' : '';
  const out = [`Imported from ${result.source.product} (${result.source.version}); mode: ${result.mode}${dry}`];
  for (const r of result.reports) out.push(...r.lines());
  for (const q of result.quota) {
    if (q.unchecked) {
      out.push(`quota check ${q.label}: ${q.unchecked}`);
      continue;
    }
    const less = q.skipped !== 0 ? ` - ${q.skipped} skipped` : '';
    out.push(`quota check ${q.label}: before ${q.before}${less}, after ${q.after} ${q.ok ? 'OK' : 'MISMATCH'}`);
  }
  out.push('not carried (Tollway has no counterpart):', ...NEVER_CARRIED.map((l) => `  ${l}`));
  const verb = result.dryRun ? 'would be written' : 'written';
  const none = result.dryRun ? 'Nothing would change' : 'Nothing changed';
  out.push(result.written === 0 ? `${none}: every row was already there.` : `${result.written} row(s) ${verb}.`);
  return out;
}
