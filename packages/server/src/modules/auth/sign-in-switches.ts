import type { OptionKey } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';
import type { CredentialEvents } from './credential-events.js';
import type { SessionOrigin, SessionOriginFamily } from './session-origin.js';

/** A sign-in method's on/off option and the sessions it opens. */
export interface SignInSwitch {
  option: OptionKey;
  origin: SessionOrigin | SessionOriginFamily;
}

/**
 * Turning a sign-in method off ends the sessions it opened, for every user (identity_provider_disabled): a root who
 * switches GitHub sign-in off means nobody stays in by GitHub. Listens on the node that saved the option; the
 * sessions are rows, so they end on every node at once, before the save answers.
 */
export function endSessionsWhenSwitchedOff(
  options: Pick<OptionsService, 'onSaved' | 'bool'>,
  credentials: Pick<CredentialEvents, 'endIdentity'>,
  switches: readonly SignInSwitch[],
): void {
  // Awaited by the save: when the option's PUT answers, the sessions have ended (a failure fails the PUT).
  options.onSaved(async (key) => {
    const sw = switches.find((s) => s.option === key);
    if (sw && !options.bool(key)) await credentials.endIdentity('identity_provider_disabled', sw.origin);
  });
}
