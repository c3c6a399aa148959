import type { FastifyRequest } from 'fastify';
import { request } from 'undici';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';

/** The `?turnstile=` query parameter of login, registration, verification codes and reset mails. */
export const turnstileQuery = z.string().max(4096).optional();

// Failures answer 4xx, not 5xx, so the console shows their message rather than its generic server error.

/** Longest wait for Cloudflare's siteverify answer, connection to last byte. */
const VERIFY_TIMEOUT_MS = 10_000;
/** Longest answer read from the verifier. */
const MAX_ANSWER_CHARS = 64 * 1024;

interface SiteverifyAnswer {
  success?: unknown;
  'error-codes'?: unknown;
}

/** Posts the token to siteverify; the parsed answer, or an ApiError saying why there is none. */
async function siteverify(ctx: AppContext, secret: string, token: string, remoteip: string): Promise<SiteverifyAnswer> {
  const url = ctx.config.turnstileVerifyUrl;
  const form = new URLSearchParams({ secret, response: token, remoteip }).toString();
  let status: number;
  let text: string;
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      headersTimeout: VERIFY_TIMEOUT_MS,
      bodyTimeout: VERIFY_TIMEOUT_MS,
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    status = res.statusCode;
    text = (await res.body.text()).slice(0, MAX_ANSWER_CHARS);
  } catch (err) {
    ctx.log.warn({ url, err: (err as Error).message }, 'Turnstile siteverify unreachable');
    throw new ApiError('bot check unavailable: the Turnstile verifier could not be reached, please try again later', 400);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (status !== 200 || answer === null || typeof answer !== 'object' || typeof (answer as SiteverifyAnswer).success !== 'boolean') {
    ctx.log.warn({ url, status, answer: text.slice(0, 200) }, 'Turnstile siteverify answer unreadable');
    throw new ApiError(`bot check unavailable: the Turnstile verifier gave an unreadable answer (HTTP ${status}), please try again later`, 400);
  }
  return answer as SiteverifyAnswer;
}

/**
 * The bot check (Cloudflare Turnstile) of the public account routes. With TurnstileCheckEnabled off it does
 * nothing; on, the caller's token must be present and accepted by siteverify (TURNSTILE_VERIFY_URL) for the
 * configured secret and the caller's IP, else the call is refused with a clear message.
 */
export async function requireTurnstile(ctx: AppContext, req: FastifyRequest, token: string | undefined): Promise<void> {
  if (!ctx.options.bool('TurnstileCheckEnabled')) return;
  if (!token) throw new ApiError('bot check required: wait a few seconds for the Turnstile check to finish, then try again', 400);
  const secret = ctx.options.get('TurnstileSecretKey');
  if (!secret) throw new ApiError('bot check is enabled but TurnstileSecretKey is not set; contact the administrator', 400);
  const answer = await siteverify(ctx, secret, token, req.ip);
  if (answer.success !== true) {
    const codes = Array.isArray(answer['error-codes']) ? answer['error-codes'].filter((c) => typeof c === 'string').join(', ') : '';
    throw new ApiError(`bot check failed: the Turnstile token was refused${codes ? ` (${codes})` : ''}; please redo the check and try again`, 403);
  }
}
