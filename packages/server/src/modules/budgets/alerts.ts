import type { Logger } from 'pino';
import { BoundedMap } from '../../lib/bounded-map.js';
import type { Db } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique.js';
import type { Mailer } from '../../lib/mailer.js';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy } from '../../lib/outbound-guard.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { OptionsService } from '../../core/options/service.js';
import { budgetCounters, type BudgetRule } from '../../core/period-limits/budget-counters.js';
import type { PeriodLimitsService } from '../../core/period-limits/service.js';
import type { PeriodLimits } from '../../core/period-limits/types.js';
import { postWebhook } from '../notifications/webhook.js';

/** Thresholds known crossed (sent here or by another node), so a settlement past one does not ask the database again. */
export const BUDGET_ALERTS_SEEN_MAX = 20_000;

/** What a budget alert's webhook receives (JSON, signed: x-tollway-signature = sha256=HMAC(secret, body)). */
export interface BudgetAlertPayload {
  org_id: number;
  budget_id: number;
  level: string;
  target_id: number;
  tag: string;
  period: string;
  percent: number;
  used_quota: number;
  limit_quota: number;
  /** Start of the budget's period (epoch ms; 0 for total). */
  period_start: number;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Budget alerts (docs/operating/budgets.md): after a call of an organization settles, every budget of the call with
 * alert thresholds whose count reached p% of its limit gets one budget_alerts row per period and threshold. The row
 * is unique, so in a cluster one node inserts it, and only that node sends: an e-mail to the organization's owners
 * and admins (alert_email), a signed POST to the organization's alert webhook (alert_webhook) through the outbound
 * guard. Never on a call's path: settled() is called without waiting, and failures are logged.
 */
export class BudgetAlerts {
  private readonly seen = new BoundedMap<string, true>({ maxEntries: BUDGET_ALERTS_SEEN_MAX });

  constructor(
    private readonly deps: {
      db: Db;
      options: OptionsService;
      secretBox: SecretBox;
      mailer: Mailer;
      log: Logger;
      limits: PeriodLimitsService;
    },
  ) {}

  /** The settlement of a call with budgets at `at` (fire and forget). */
  settled(p: PeriodLimits, at: number): void {
    const alerting = budgetCounters(p, at).filter((c) => c.budget!.alertPercents.length > 0);
    if (!alerting.length) return;
    void this.check(
      alerting.map((c) => c.budget!),
      p.userId,
    ).catch((err: unknown) => this.deps.log.warn({ err }, 'budget alerts: checking failed'));
  }

  /** Inserts the alert rows of the thresholds crossed and sends those this node inserted. */
  async check(rules: BudgetRule[], walletUserId: number): Promise<void> {
    const uses = await this.deps.limits.budgetUses(rules, walletUserId);
    for (const [i, b] of rules.entries()) {
      const { counter, used } = uses[i]!;
      const periodStart = counter.periodStart ?? 0;
      for (const percent of b.alertPercents) {
        // used / limit ≥ percent / 100, in integers.
        if (used * 100 < percent * b.limit) continue;
        const key = `${b.id}:${periodStart}:${percent}`;
        if (this.seen.get(key)) continue;
        this.seen.set(key, true);
        if (!(await this.claim(b.id, periodStart, percent, used))) continue;
        const payload: BudgetAlertPayload = {
          org_id: b.orgId,
          budget_id: b.id,
          level: b.level,
          target_id: b.targetId,
          tag: b.tag,
          period: b.period,
          percent,
          used_quota: used,
          limit_quota: b.limit,
          period_start: periodStart,
        };
        await this.send(b, payload).catch((err: unknown) =>
          this.deps.log.warn(
            { budget: b.id, percent, reason: (err as Error).message },
            'budget alert: delivery failed',
          ),
        );
      }
    }
  }

  /** The alert's row: true when this node inserted it (the one that sends), false when it was there already. */
  private async claim(budgetId: number, periodStart: number, percent: number, used: number): Promise<boolean> {
    try {
      await this.deps.db.kysely
        .insertInto('budget_alerts')
        .values({
          budget_id: budgetId,
          period_start: periodStart,
          percent,
          used_quota: used,
          fired_at: Math.floor(Date.now() / 1000),
        })
        .execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  private async send(b: BudgetRule, payload: BudgetAlertPayload): Promise<void> {
    const k = this.deps.db.kysely;
    const org = await k
      .selectFrom('organizations')
      .select(['name', 'alert_webhook_url', 'alert_webhook_secret'])
      .where('id', '=', b.orgId)
      .executeTakeFirst();
    if (!org) return;
    const sends: Promise<void>[] = [];
    if (b.alertWebhook && org.alert_webhook_url)
      sends.push(
        postWebhook(
          org.alert_webhook_url,
          payload,
          org.alert_webhook_secret ? this.deps.secretBox.open(org.alert_webhook_secret) : '',
          guardedDispatcher(() => fetchPolicy(this.deps.options)),
        ),
      );
    if (b.alertEmail && this.deps.mailer.configured()) {
      const to = await k
        .selectFrom('org_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select('u.email')
        .where('m.org_id', '=', b.orgId)
        .where('m.role', 'in', ['owner', 'admin'])
        .where('u.email', '!=', '')
        .execute();
      const on =
        b.level === 'tag' ? `tag ${b.tag}` : b.level === 'org' ? 'the organization' : `${b.level} ${b.targetId}`;
      const subject = `Budget alert: ${org.name} used ${payload.percent}% of a ${b.period} budget`;
      const html =
        `<p>The ${b.period} budget of ${escapeHtml(on)} in ${escapeHtml(org.name)} has used ` +
        `${payload.used_quota} of ${payload.limit_quota} quota (${payload.percent}% alert).</p>`;
      for (const r of to) sends.push(this.deps.mailer.send({ to: r.email, subject, html }));
    }
    const results = await Promise.allSettled(sends);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }
}
