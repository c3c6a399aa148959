import type { Logger } from 'pino';
import type { Db } from '../../db/connect.js';
import type { Mailer } from '../../lib/mailer.js';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy } from '../../lib/outbound-guard.js';
import { nowSeconds } from '../../lib/time.js';
import type { OptionsService } from '../../core/options/service.js';
import { quotaWarningMail, quotaWarningPayload } from './message.js';
import { QuotaWarningStore, type WarningUser } from './store.js';
import { warningTarget, warningThreshold, type WarningTarget } from './target.js';
import { postWebhook } from './webhook.js';

/**
 * Low-quota warnings. After the durable writer commits a batch, every user it charged is checked off the relay's
 * path: one whose committed balance is below their threshold and who is armed is claimed by one conditional
 * UPDATE (so one node of a cluster sends) and warned by e-mail or webhook. A balance seen at or above the
 * threshold again (after a charge, or any account change: top-up, redemption, admin edit) arms them again.
 * Failures are logged; nothing is thrown back to the writer or the caller.
 */
export class QuotaWarnings {
  private readonly store: QuotaWarningStore;
  /** Users waiting to be checked. */
  private readonly queue = new Set<number>();
  private draining: Promise<void> | undefined;
  private readonly sending = new Set<Promise<void>>();
  private closed = false;

  constructor(
    db: Db,
    private readonly options: OptionsService,
    private readonly mailer: Mailer,
    private readonly log: Logger,
  ) {
    this.store = new QuotaWarningStore(db);
  }

  /** The writer committed charges for these users: check them in the background. */
  charged(userIds: Iterable<number>): void {
    if (this.closed) return;
    for (const id of userIds) this.queue.add(id);
    this.kick();
  }

  /** Starts draining the queue unless it is under way (users queued as a drain ends start the next one). */
  private kick(): void {
    if (this.draining || this.queue.size === 0) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      this.kick();
    });
  }

  /** A user's account changed outside the relay: arm them again if their balance is back at or above the threshold. */
  async accountChanged(userId: number): Promise<void> {
    if (this.closed) return;
    try {
      const [user] = await this.store.users([userId]);
      if (!user || user.warnedAt === 0) return;
      const threshold = warningThreshold(user, this.options);
      if (user.quota >= threshold || threshold <= 0) await this.store.rearm(userId, threshold);
    } catch (err) {
      this.log.warn({ err, userId }, 'quota warning: re-arming failed');
    }
  }

  /** Resolves once every queued check and started warning has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining || this.sending.size) {
      await this.draining;
      await Promise.all([...this.sending]);
    }
  }

  /** Finishes the checks and warnings under way; later commits are not checked. */
  async close(): Promise<void> {
    await this.idle();
    this.closed = true;
  }

  private async drain(): Promise<void> {
    while (this.queue.size) {
      const ids = [...this.queue];
      this.queue.clear();
      let users: WarningUser[];
      try {
        users = await this.store.users(ids);
      } catch (err) {
        this.log.warn({ err, users: ids.length }, 'quota warning: reading balances failed');
        continue;
      }
      for (const user of users) {
        try {
          await this.check(user);
        } catch (err) {
          this.log.warn({ err, userId: user.id }, 'quota warning: check failed');
        }
      }
    }
  }

  /** Arms a user seen at or above their threshold; claims and warns an armed one below it. */
  private async check(user: WarningUser): Promise<void> {
    const userId = user.id;
    const threshold = warningThreshold(user, this.options);
    if (user.quota >= threshold) {
      if (user.warnedAt !== 0) await this.store.rearm(userId, threshold);
      return;
    }
    if (user.warnedAt !== 0) return;
    const target = warningTarget(user, this.options);
    if (!target) return;
    if (target.via === 'email' && !this.mailer.configured()) {
      this.log.debug({ userId }, 'quota warning: not sent, mail delivery is not configured');
      return;
    }
    const now = nowSeconds();
    if (!(await this.store.claim(userId, target.threshold, now))) return;
    const sent = this.send(user, target, now)
      .then(() =>
        this.log.info(
          { userId, via: target.via, quota: user.quota, threshold: target.threshold },
          'quota warning sent',
        ),
      )
      .catch((err: unknown) =>
        this.log.warn({ userId, via: target.via, reason: (err as Error).message }, 'quota warning: delivery failed'),
      )
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  private async send(user: WarningUser, target: WarningTarget, now: number): Promise<void> {
    const payload = quotaWarningPayload(user, target.threshold, this.options, now);
    if (target.via === 'webhook')
      return postWebhook(
        target.url,
        payload,
        target.secret,
        guardedDispatcher(() => fetchPolicy(this.options)),
      );
    const mail = quotaWarningMail(payload, this.options);
    await this.mailer.send({ to: target.to, subject: mail.subject, html: mail.html });
  }
}
