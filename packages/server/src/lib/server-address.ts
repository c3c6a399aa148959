import { ErrorCode } from '@tollway/shared';
import { coded } from './errors.js';
import type { OptionReader } from './option-reader.js';

export const NO_SERVER_ADDRESS =
  'the administrator has not set the server address (ServerAddress) that links in mail point to, so no link can be mailed; contact the administrator';

/**
 * The gateway's public address as the administrator configured it (ServerAddress, trailing slashes dropped), or
 * undefined while it is unset. The one source of every link that leaves a request (mail, notifications, payment
 * return addresses): a request's Host or X-Forwarded-Host is chosen by whoever sends it, so a link built from it
 * would point wherever the sender likes.
 */
export function configuredServerAddress(options: OptionReader): string | undefined {
  const address = options.get('ServerAddress').trim().replace(/\/+$/, '');
  return address || undefined;
}

/** The origin of a link put in a mail: ServerAddress, or the clear refusal while it is unset (no mail is sent then). */
export function mailLinkOrigin(options: OptionReader): string {
  const address = configuredServerAddress(options);
  if (!address) throw coded(ErrorCode.MailLinkNoServerAddress, NO_SERVER_ADDRESS, { settings: 'ServerAddress' });
  return address;
}
