import crypto from 'node:crypto';

/** The authenticated caller as routes see it. */
export interface AuthUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
}

export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

interface SessionPayload {
  uid: number;
  /** Expiry, epoch seconds. */
  exp: number;
}

/**
 * Session cookies sealed with AES-256-GCM under a key derived from SESSION_SECRET: any node that shares the
 * secret can open them, nobody without it can read or forge them.
 */
export class SessionSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = crypto.createHash('sha256').update(`tollway-session:${secret}`).digest();
  }

  seal(uid: number, maxAgeSeconds = SESSION_MAX_AGE_SECONDS, now = Date.now()): string {
    const payload: SessionPayload = { uid, exp: Math.floor(now / 1000) + maxAgeSeconds };
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Returns the user id, or undefined for a forged, damaged or expired cookie. */
  open(value: string | undefined, now = Date.now()): number | undefined {
    if (!value || value.length > 512) return undefined;
    try {
      const raw = Buffer.from(value, 'base64url');
      if (raw.length < 29) return undefined;
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const json = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const payload = JSON.parse(json) as SessionPayload;
      if (!Number.isInteger(payload.uid) || payload.exp * 1000 < now) return undefined;
      return payload.uid;
    } catch {
      return undefined;
    }
  }
}

/** Reads one cookie from a Cookie header without a dependency. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export function sessionCookie(value: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
