import type { ImportResult } from './run.js';

/** The final summary: source, mode, per-table counts with what was not mapped and why, the quota check. */
export function summaryLines(result: ImportResult, dryRun: boolean): string[] {
  const out = [
    `Imported from ${result.source.product} (${result.source.version}); mode: ${result.mode}${dryRun ? ' (dry run: nothing written)' : ''}`,
  ];
  for (const r of result.reports) out.push(...r.lines());
  if (dryRun) out.push('quota check: not run in a dry run');
  for (const q of result.quota) {
    const less = q.skipped !== 0 ? ` - ${q.skipped} skipped` : '';
    out.push(`quota check ${q.label}: before ${q.before}${less}, after ${q.after} ${q.ok ? 'OK' : 'MISMATCH'}`);
  }
  out.push(
    result.written === 0 ? 'Nothing changed: every row was already there.' : `${result.written} row(s) written.`,
  );
  return out;
}
