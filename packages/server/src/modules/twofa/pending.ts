import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { BoundedMap } from '../../lib/bounded-map.js';
import type { SessionOrigin } from '../auth/session-origin.js';

/** A first step waiting for its second factor: whose, and how its first factor signed in (the session's origin). */
export interface PendingLogin {
  userId: number;
  origin: SessionOrigin;
}

/**
 * Password (or third-party) sign-ins waiting for their second factor. The caller holds a random token; the
 * server keeps only its SHA-256 with the user id and expiry: in memory on one node, in Redis across a cluster.
 * A token is not a session: it opens nothing but POST /api/user/login/2fa, and is taken once.
 */
export interface PendingLogins {
  /** A new token for `login`, valid for `ttlMs`. */
  create(login: PendingLogin, ttlMs: number): Promise<string>;
  /** The sign-in a live token belongs to, without taking it. */
  peek(token: string): Promise<PendingLogin | undefined>;
  /** Takes the token; true for exactly one caller while it is live. */
  take(token: string): Promise<boolean>;
}

const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const keyOf = (token: string): string => crypto.createHash('sha256').update(token).digest('hex');
const newToken = (): string => crypto.randomBytes(TOKEN_BYTES).toString('base64url');

/** Most pending two-factor sign-ins one node keeps (each from a correct password; a flood evicts the oldest). */
const MAX_PENDING_LOGINS = 10_000;

export class MemoryPendingLogins implements PendingLogins {
  private readonly entries = new BoundedMap<string, PendingLogin & { expiresAt: number }>({
    maxEntries: MAX_PENDING_LOGINS,
  });

  async create(login: PendingLogin, ttlMs: number): Promise<string> {
    this.sweep();
    const token = newToken();
    this.entries.set(keyOf(token), { userId: login.userId, origin: login.origin, expiresAt: Date.now() + ttlMs });
    return token;
  }

  async peek(token: string): Promise<PendingLogin | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const entry = this.entries.get(keyOf(token));
    return entry && entry.expiresAt > Date.now() ? { userId: entry.userId, origin: entry.origin } : undefined;
  }

  async take(token: string): Promise<boolean> {
    if (!TOKEN_PATTERN.test(token)) return false;
    const key = keyOf(token);
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry !== undefined && entry.expiresAt > Date.now();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }
}

export class RedisPendingLogins implements PendingLogins {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(token: string): string {
    return `${this.prefix}2fa-login:${keyOf(token)}`;
  }

  async create(login: PendingLogin, ttlMs: number): Promise<string> {
    const token = newToken();
    const value = `${login.userId} ${login.origin}`;
    await this.redis.set(this.key(token), value, 'PX', Math.max(1, Math.round(ttlMs)));
    return token;
  }

  async peek(token: string): Promise<PendingLogin | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const v = await this.redis.get(this.key(token));
    if (!v) return undefined;
    const space = v.indexOf(' ');
    return { userId: Number(v.slice(0, space)), origin: v.slice(space + 1) as SessionOrigin };
  }

  async take(token: string): Promise<boolean> {
    if (!TOKEN_PATTERN.test(token)) return false;
    return (await this.redis.del(this.key(token))) === 1;
  }
}
