import type { CustomOAuthBoolField, CustomOAuthStringField, CustomOAuthTextField } from '@tollway/shared';
import type { Generated } from 'kysely';

/** A root-defined sign-in provider (new-api's custom_oauth_providers); booleans 0/1, client_secret sealed. */
export type CustomOAuthProvidersTable = {
  id: Generated<number>;
  client_secret: string;
  auth_style: number;
  created_at: number;
  updated_at: number;
} & Record<CustomOAuthStringField | CustomOAuthTextField, string> &
  Record<CustomOAuthBoolField, number>;

/** A user's account with a custom provider (new-api's user_oauth_bindings). */
export interface UserOAuthBindingsTable {
  id: Generated<number>;
  user_id: number;
  provider_id: number;
  provider_user_id: string;
  created_at: number;
}
