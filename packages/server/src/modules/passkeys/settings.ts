import { ErrorCode } from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import { coded } from '../../lib/errors.js';
import type { OptionReader } from '../../lib/option-reader.js';
import { configuredServerAddress } from '../../lib/server-address.js';
import { SessionOriginFamilies } from '../auth/session-origin.js';
import type { SignInSwitch } from '../auth/sign-in-switches.js';

export type UserVerification = 'required' | 'preferred' | 'discouraged';
export type Attachment = 'platform' | 'cross-platform';

/** The relying party a ceremony runs for, from new-api's passkey options and ServerAddress. */
export interface RelyingParty {
  name: string;
  id: string;
  origins: string[];
  userVerification: UserVerification;
  attachment: Attachment | undefined;
}

export const PASSKEYS_OFF = 'the administrator has not enabled passkey sign-in';

/** Switching passkeys off ends every session a passkey opened (src/sign-in-switches.ts). */
export const PASSKEY_SIGN_IN_SWITCH: SignInSwitch = {
  option: 'passkey.enabled',
  origin: SessionOriginFamilies.passkeys,
};
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Browsers run WebAuthn on https pages and on loopback http pages only. */
function isSecureOrigin(origin: URL): boolean {
  return origin.protocol === 'https:' || LOOPBACK_HOSTS.has(origin.hostname);
}

function parseOrigin(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The origins a passkey response may come from: `passkey.origins` (comma separated), else ServerAddress, else the
 * address the request came to. An http origin other than the loopback is refused unless
 * `passkey.allow_insecure_origin` is on. The RP id is `passkey.rp_id` (a port dropped), else the first origin's host.
 */
export function relyingParty(options: OptionReader, req: FastifyRequest): RelyingParty {
  if (!options.bool('passkey.enabled')) throw coded(ErrorCode.PasskeyUnavailable, PASSKEYS_OFF);
  const configured = options
    .get('passkey.origins')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '' && o !== '[]');
  const fallback = configuredServerAddress(options) ?? `${req.protocol}://${req.host}`;
  const allowInsecure = options.bool('passkey.allow_insecure_origin');
  const origins: string[] = [];
  for (const value of configured.length > 0 ? configured : [fallback]) {
    const url = parseOrigin(value);
    if (!url)
      throw coded(ErrorCode.PasskeyOriginInvalid, `the passkey origin "${value}" is not an http(s) address`, {
        settings: 'passkey.origins',
      });
    if (!allowInsecure && !isSecureOrigin(url))
      throw coded(
        ErrorCode.PasskeyInsecureOrigin,
        `passkeys need an https address, this one is ${url.origin}: set ServerAddress to https or allow insecure origins in the passkey settings`,
        { settings: 'passkey.allow_insecure_origin' },
      );
    origins.push(url.origin);
  }
  const rpIdSetting = options.get('passkey.rp_id').trim();
  const id = rpIdSetting
    ? rpIdSetting.replace(/^[a-z]+:\/\//i, '').replace(/[:/].*$/, '')
    : new URL(origins[0]!).hostname;
  const uv = options.get('passkey.user_verification');
  const attachment = options.get('passkey.attachment_preference');
  return {
    name: options.get('passkey.rp_display_name').trim() || options.get('SystemName'),
    id,
    origins,
    userVerification: uv === 'required' || uv === 'discouraged' ? uv : 'preferred',
    attachment: attachment === 'platform' || attachment === 'cross-platform' ? attachment : undefined,
  };
}
