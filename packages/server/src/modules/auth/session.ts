import crypto from 'node:crypto';

export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

interface SessionPayload {
  uid: number;
  /** The random session id; its SHA-256 is the key of the session's row. */
  sid: string;
  /** Expiry, epoch seconds. */
  exp: number;
}

/** What an intact, unexpired cookie says; the session row decides whether it still counts. */
export interface SealedSession {
  uid: number;
  sid: string;
}

const SID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * Session cookies sealed with AES-256-GCM under a key derived from SESSION_SECRET: any node that shares the
 * secret can open them, nobody without it can read or forge them. A cookie without a session id (made before
 * sessions had rows) is refused.
 */
export class SessionSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = crypto.createHash('sha256').update(`tollway-session:${secret}`).digest();
  }

  seal(uid: number, sid: string, maxAgeSeconds = SESSION_MAX_AGE_SECONDS, now = Date.now()): string {
    const payload: SessionPayload = { uid, sid, exp: Math.floor(now / 1000) + maxAgeSeconds };
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The user and session id, or undefined for a forged, damaged, expired or id-less cookie. */
  open(value: string | undefined, now = Date.now()): SealedSession | undefined {
    if (!value || value.length > 512) return undefined;
    try {
      const raw = Buffer.from(value, 'base64url');
      if (raw.length < 29) return undefined;
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const json = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const payload = JSON.parse(json) as Partial<SessionPayload>;
      if (!Number.isInteger(payload.uid) || typeof payload.exp !== 'number' || payload.exp * 1000 < now)
        return undefined;
      if (typeof payload.sid !== 'string' || !SID_PATTERN.test(payload.sid)) return undefined;
      return { uid: payload.uid!, sid: payload.sid };
    } catch {
      return undefined;
    }
  }
}

/** The key of a session's row: the SHA-256 (hex) of its id, so the table never holds a usable id. */
export const sessionKey = (sid: string): string => crypto.createHash('sha256').update(sid).digest('hex');

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
