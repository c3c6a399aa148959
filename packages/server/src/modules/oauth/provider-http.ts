import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import type { ExternalAnswer } from '../../lib/external-call.js';

/** Longest provider error text shown to the visitor. */
const PROVIDER_ERROR_MAX_CHARS = 200;

/**
 * The provider's own error text from an OAuth error answer ({error, error_description} or {message}); any other
 * answer (an HTML page, a proxy's error) is named by its status only, never echoed.
 */
export function providerError(answer: ExternalAnswer): string {
  const b = answer.body as { error?: unknown; error_description?: unknown; message?: unknown } | undefined;
  const parts = [b?.error_description, b?.error, b?.message].filter(
    (p): p is string => typeof p === 'string' && p !== '',
  );
  if (parts.length) return parts[0]!.slice(0, PROVIDER_ERROR_MAX_CHARS);
  return `HTTP ${answer.status}`;
}

/** The access_token of a token endpoint's answer, or a refusal with the provider's reason. */
export function accessTokenOf(provider: string, answer: ExternalAnswer): string {
  const token = (answer.body as { access_token?: unknown } | undefined)?.access_token;
  if (answer.status >= 400 || typeof token !== 'string' || !token) {
    throw coded(
      ErrorCode.OAuthCodeRefused,
      `${provider} refused the sign-in code (${providerError(answer)}): start the sign-in again`,
      {
        provider,
        reason: providerError(answer),
      },
    );
  }
  return token;
}

/** A JSON object answer, or an ApiError saying the provider's user could not be read. */
export function userObjectOf(provider: string, answer: ExternalAnswer): Record<string, unknown> {
  const b = answer.body;
  if (answer.status >= 400 || b === null || typeof b !== 'object' || Array.isArray(b)) {
    throw coded(ErrorCode.OAuthUserUnreadable, `cannot read the ${provider} user (${providerError(answer)})`, {
      provider,
      reason: providerError(answer),
    });
  }
  return b as Record<string, unknown>;
}

/** A string or number field as a string ('' when absent). */
export const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';
