import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { candidatesOf } from '../identity/mapping.js';
import { denialMessage, evaluatePolicy, parseAccessPolicy, textAt, valueAt } from './claims.js';
import type { OpenedProvider } from './providers.js';
import type { ExternalIdentity } from './signin.js';

/** Longest external account id kept (user_oauth_bindings.provider_user_id). */
const MAX_EXTERNAL_ID = 256;

/** The access policy's verdict on the provider's user: a refusal with root's message when it is not met. */
export function checkPolicy(p: OpenedProvider, doc: unknown): void {
  if (!p.access_policy?.trim()) return;
  const failure = evaluatePolicy(doc, parseAccessPolicy(p.access_policy));
  if (failure) {
    const message = denialMessage(p.access_denied_message ?? '', p.name, doc, failure);
    throw coded(ErrorCode.CustomOAuthAccessDenied, message, { message }, 403);
  }
}

/** The user a provider's claims (user info, ID token or external JWT) describe, by the provider's field paths. */
export function identityOf(p: OpenedProvider, doc: Record<string, unknown>): ExternalIdentity {
  checkPolicy(p, doc);
  const id = textAt(doc, p.user_id_field || 'sub');
  if (!id || id.length > MAX_EXTERNAL_ID)
    throw coded(ErrorCode.OAuthUserNoId, `${p.name} answered no user id (${p.user_id_field || 'sub'})`, {
      provider: p.name,
    });
  const verified = valueAt(doc, 'email_verified');
  return {
    id,
    username: textAt(doc, p.username_field || 'preferred_username'),
    displayName: textAt(doc, p.display_name_field || 'name'),
    email: textAt(doc, p.email_field || 'email'),
    emailVerified: verified !== false && verified !== 'false',
    groups: p.group_field ? candidatesOf(valueAt(doc, p.group_field)) : [],
    roles: p.role_field ? candidatesOf(valueAt(doc, p.role_field)) : [],
  };
}
