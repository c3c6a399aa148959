import { vi } from 'vitest';
import { totpCode } from '../../src/modules/twofa/totp.js';
import { Client, type CallResult } from './app.js';

/**
 * A controllable clock for two-factor tests: only Date is faked (timers stay real), so a test can step the
 * server's time to the next 30-second TOTP step instead of waiting for it. Starts at the start of a 5-minute window.
 */
export class TotpClock {
  now = 0;

  start(): void {
    vi.useFakeTimers({ toFake: ['Date'] });
    this.now = Math.ceil(Date.now() / 300_000) * 300_000 + 1_000;
    vi.setSystemTime(this.now);
  }

  stop(): void {
    vi.useRealTimers();
  }

  /** Moves on `steps` TOTP steps (30 s each). */
  tick(steps = 1): void {
    this.now += steps * 30_000;
    vi.setSystemTime(this.now);
  }

  /**
   * Moves to the start of the 5-minute window after the next, so the failure counters start over (they slide: the
   * window before the current one no longer counts).
   */
  nextWindow(): void {
    this.now = Math.ceil((this.now + 1) / 300_000) * 300_000 + 300_000 + 1_000;
    vi.setSystemTime(this.now);
  }

  /** The authenticator's code for `secret` now (after moving to a fresh step so it was never used). */
  code(secret: string): string {
    this.tick();
    return totpCode(secret, this.now);
  }
}

export interface Enabled {
  secret: string;
  backupCodes: string[];
}

export interface Challenge {
  require_2fa: true;
  flow_token: string;
  expires_at: number;
}

/** Sets up and enables 2FA for a logged-in client with the authenticator's code. */
export async function enableTwoFactor(c: Client, clock: TotpClock): Promise<Enabled> {
  const setup = await c.call<{ secret: string; qr_code_data: string; backup_codes: string[] }>(
    'POST',
    '/api/user/2fa/setup',
  );
  if (!setup.body.success) throw new Error(`setup failed: ${setup.body.message}`);
  const { secret, backup_codes } = setup.body.data!;
  const enabled = await c.call('POST', '/api/user/2fa/enable', { code: clock.code(secret) });
  if (!enabled.body.success) throw new Error(`enable failed: ${enabled.body.message}`);
  return { secret, backupCodes: backup_codes };
}

/** The second step as a browser would send it, from `ip`; a success makes `c` that user. */
export async function secondStep(
  c: Client,
  flowToken: string | undefined,
  code: string,
  ip = '127.0.0.1',
): Promise<CallResult<{ id: number; username: string }>> {
  const res = await c.call<{ id: number; username: string }>(
    'POST',
    '/api/user/login/2fa',
    { code, ...(flowToken ? { flow_token: flowToken } : {}) },
    { 'x-forwarded-for': ip },
  );
  if (res.body.success) c.userId = res.body.data!.id;
  return res;
}

export const setCookieHeaders = (res: CallResult): string[] => [res.raw.headers['set-cookie'] ?? []].flat();
