import { ErrorCode } from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { coded } from '../../lib/errors.js';
import { callExternal, type ExternalAnswer } from '../../lib/external-call.js';

/** The `?turnstile=` query parameter of login, registration, verification codes and reset mails. */
export const turnstileQuery = z.string().max(4096).optional();

/** What the Turnstile check reads: its options, the siteverify URL, and the log for an unreachable verifier. */
export type TurnstileDeps = Pick<AppContext, 'options' | 'config' | 'log'>;

interface SiteverifyAnswer {
  success?: unknown;
  'error-codes'?: unknown;
}

/** Posts the token to siteverify; the parsed answer, or an ApiError saying why there is none. */
async function siteverify(
  deps: TurnstileDeps,
  secret: string,
  token: string,
  remoteip: string,
): Promise<SiteverifyAnswer> {
  const url = deps.config.turnstileVerifyUrl;
  let answer: ExternalAnswer;
  try {
    answer = await callExternal(
      'the Turnstile verifier',
      url,
      { method: 'POST', form: { secret, response: token, remoteip } },
      [secret],
    );
  } catch (err) {
    deps.log.warn({ url, err: (err as Error).message }, 'Turnstile siteverify unreachable');
    throw coded(
      ErrorCode.BotCheckUnavailable,
      'bot check unavailable: the Turnstile verifier could not be reached, please try again later',
    );
  }
  const body = answer.body as SiteverifyAnswer | null | undefined;
  if (answer.status !== 200 || body === null || typeof body !== 'object' || typeof body.success !== 'boolean') {
    deps.log.warn(
      { url, status: answer.status, answer: answer.text.slice(0, 200) },
      'Turnstile siteverify answer unreadable',
    );
    throw coded(
      ErrorCode.BotCheckUnavailable,
      `bot check unavailable: the Turnstile verifier gave an unreadable answer (HTTP ${answer.status}), please try again later`,
    );
  }
  return body;
}

/**
 * The bot check (Cloudflare Turnstile) of the public account routes. With TurnstileCheckEnabled off it does
 * nothing; on, the caller's token must be present and accepted by siteverify (TURNSTILE_VERIFY_URL) for the
 * configured secret and the caller's IP, else the call is refused with a clear message.
 */
export async function requireTurnstile(
  deps: TurnstileDeps,
  req: FastifyRequest,
  token: string | undefined,
): Promise<void> {
  if (!deps.options.bool('TurnstileCheckEnabled')) return;
  if (!token)
    throw coded(
      ErrorCode.BotCheckRequired,
      'bot check required: wait a few seconds for the Turnstile check to finish, then try again',
    );
  const secret = deps.options.get('TurnstileSecretKey');
  if (!secret)
    throw coded(
      ErrorCode.BotCheckNotConfigured,
      'bot check is enabled but TurnstileSecretKey is not set; contact the administrator',
    );
  const answer = await siteverify(deps, secret, token, req.ip);
  if (answer.success !== true) {
    const codes = Array.isArray(answer['error-codes'])
      ? answer['error-codes'].filter((c) => typeof c === 'string').join(', ')
      : '';
    throw coded(
      ErrorCode.BotCheckFailed,
      `bot check failed: the Turnstile token was refused${codes ? ` (${codes})` : ''}; please redo the check and try again`,
    );
  }
}
