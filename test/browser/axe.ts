import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser build, injected into pages with addScriptTag. */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** The impacts this project treats as failures. */
const BLOCKING_IMPACTS = ['critical', 'serious'];

/** One failing element: where, which rule, how bad. */
export interface AxeFinding {
  page: string;
  rule: string;
  impact: string;
  target: string;
  /** The element's opening markup (shortened). */
  html: string;
  summary: string;
}

/**
 * Waits until the page has settled: the network idle, no loading spinner and no running animation (a fading
 * element would be measured half transparent).
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await page.waitForFunction(
    () =>
      document.querySelector('.tw-page-fallback, .tw-auth-fallback, .ant-spin-spinning, .ant-skeleton-active') ===
        null &&
      document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
    undefined,
    { timeout: 20_000 },
  );
}

/** Runs axe-core (every rule but the experimental ones) on the page; its critical and serious findings. */
export async function axeFindings(page: Page, label: string): Promise<AxeFinding[]> {
  await settle(page);
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: unknown[] }> } })
      .axe;
    const res = await axe.run(document, { resultTypes: ['violations'] });
    return res.violations as {
      id: string;
      impact: string | null;
      nodes: { target: unknown[]; html: string; failureSummary?: string; impact?: string | null }[];
    }[];
  });
  return violations.flatMap((v) =>
    v.nodes
      .filter((n) => BLOCKING_IMPACTS.includes(n.impact ?? v.impact ?? ''))
      .map((n) => ({
        page: label,
        rule: v.id,
        impact: n.impact ?? v.impact ?? '',
        target: n.target.map(String).join(' '),
        html: n.html.replace(/\s+/g, ' ').slice(0, 160),
        summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 200),
      })),
  );
}

/** One line per finding, for an assertion's failure message. */
export const describeFindings = (findings: AxeFinding[]): string[] =>
  findings.map((f) => `${f.page}: ${f.rule} (${f.impact}) at ${f.target} ${f.html} — ${f.summary}`);
