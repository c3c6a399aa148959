import { BUILT_IN_SIGN_IN_SWITCHES } from './modules/oauth/bindings.js';
import { LDAP_SIGN_IN_SWITCH } from './modules/ldap/settings.js';
import { PASSKEY_SIGN_IN_SWITCH } from './modules/passkeys/settings.js';
import type { SignInSwitch } from './modules/auth/sign-in-switches.js';

/**
 * Every sign-in method switched by an option; switching one off ends the sessions it opened (identity_provider_
 * disabled). A new sign-in method adds its switch here. Root-defined providers are rows, not options: their own
 * service ends their sessions when one is disabled or deleted.
 */
export const SIGN_IN_SWITCHES: readonly SignInSwitch[] = [
  ...BUILT_IN_SIGN_IN_SWITCHES,
  LDAP_SIGN_IN_SWITCH,
  PASSKEY_SIGN_IN_SWITCH,
];
