import { ErrorCode } from '@tollway/shared';
import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { readCookie } from '../auth/session.js';

/**
 * The sign-in state of GET /api/oauth/state: a random string the browser carries to the provider and back,
 * kept with the invite code in a cookie of its own (HttpOnly, SameSite=Lax, sent only to /api/oauth) that a
 * callback must match and that works once. Every node reads it, so no server-side store is needed. A state
 * asked for by a signed-in console (session cookie and New-Api-User) also holds that session's row key (a hash
 * of a secret id nobody else knows): only such a state binds an account, and only for that same session, so a
 * link from another site, or a state cookie planted by one, never binds an account to a signed-in victim.
 */
export const STATE_COOKIE = 'oauth_state';
const STATE_MAX_AGE_SECONDS = 10 * 60;
const STATE_PATH = '/api/oauth';

interface StoredState {
  s: string;
  aff: string;
  /** The row key of the session the state was issued to (a bind), '' for a sign-in. */
  sk: string;
  /** A root-defined provider's sign-in (modules/custom-oauth): its id, PKCE code verifier and OpenID nonce. */
  p?: number;
  v?: string;
  n?: string;
}

/** What a root-defined provider's sign-in keeps with its state (absent for the built-in providers). */
export interface StateExtras {
  providerId?: number;
  verifier?: string;
  nonce?: string;
}

/** Longest state cookie read (a state, invite code, session key, PKCE verifier and nonce). */
const MAX_STATE_COOKIE = 1024;

function cookie(value: string, maxAge: number, secure: boolean): string {
  return `${STATE_COOKIE}=${value}; Path=${STATE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Makes a new state, remembers it (and the invite code) in the caller's state cookie, and returns it. */
export function issueState(
  req: FastifyRequest,
  reply: FastifyReply,
  aff: string,
  session = '',
  extras: StateExtras = {},
): string {
  const state = randomString(16);
  const stored: StoredState = { s: state, aff, sk: session, p: extras.providerId, v: extras.verifier, n: extras.nonce };
  reply.header(
    'set-cookie',
    cookie(Buffer.from(JSON.stringify(stored)).toString('base64url'), STATE_MAX_AGE_SECONDS, req.protocol === 'https'),
  );
  return state;
}

function readState(req: FastifyRequest): StoredState | undefined {
  const raw = readCookie(req.headers.cookie, STATE_COOKIE);
  if (!raw || raw.length > MAX_STATE_COOKIE) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<StoredState>;
    if (typeof parsed.s !== 'string' || !parsed.s) return undefined;
    return {
      s: parsed.s,
      aff: typeof parsed.aff === 'string' ? parsed.aff : '',
      sk: typeof parsed.sk === 'string' ? parsed.sk : '',
      p: typeof parsed.p === 'number' ? parsed.p : undefined,
      v: typeof parsed.v === 'string' ? parsed.v : undefined,
      n: typeof parsed.n === 'string' ? parsed.n : undefined,
    };
  } catch {
    return undefined;
  }
}

const sameString = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

/** The Set-Cookie value that drops the caller's state (a state works once). */
export function clearStateCookie(req: FastifyRequest): string {
  return cookie('', 0, req.protocol === 'https');
}

/**
 * Checks the callback's state against the caller's and returns the invite code and session remembered with it.
 * A missing or different state is refused. The caller clears the cookie (clearStateCookie) whatever the outcome.
 */
export function checkState(req: FastifyRequest, given: string): { aff: string; session: string } & StateExtras {
  const stored = readState(req);
  if (!stored)
    throw new ApiError('sign-in state missing or expired: start the sign-in again from the login page', 403, true, {
      code: ErrorCode.OAuthStateInvalid,
    });
  if (!given || !sameString(stored.s, given))
    throw new ApiError('sign-in state does not match: start the sign-in again from the login page', 403, true, {
      code: ErrorCode.OAuthStateInvalid,
    });
  return { aff: stored.aff, session: stored.sk, providerId: stored.p, verifier: stored.v, nonce: stored.n };
}

/** True when a checked state was issued for a bind by the session keyed `current`. */
export function bindsSession(stateSession: string, current: string | undefined): boolean {
  return !!stateSession && !!current && sameString(stateSession, current);
}
