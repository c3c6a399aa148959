import { z } from 'zod';

/**
 * Root-defined sign-in providers (new-api's `/api/custom-oauth-provider/*`): the shapes its console sends and
 * reads. Three kinds: `oauth_code` (authorization code with state, PKCE and, for the openid scope, a nonce),
 * `jwt_direct` (a token the caller already holds, verified by JWKS or a public key) and `trusted_header` (an
 * identity proxy in front of the gateway names the user in request headers).
 */
export const CUSTOM_OAUTH_KINDS = ['oauth_code', 'jwt_direct', 'trusted_header'] as const;
export type CustomOAuthKind = (typeof CUSTOM_OAUTH_KINDS)[number];

/** Text fields and their longest length (new-api's column sizes). */
export const CUSTOM_OAUTH_STRING_FIELDS = {
  name: 64,
  slug: 64,
  icon: 128,
  kind: 32,
  client_id: 256,
  authorization_endpoint: 512,
  token_endpoint: 512,
  user_info_endpoint: 512,
  scopes: 256,
  issuer: 512,
  audience: 256,
  jwks_url: 512,
  jwt_source: 32,
  jwt_header: 128,
  jwt_identity_mode: 32,
  jwt_acquire_mode: 32,
  external_id_header: 128,
  username_header: 128,
  display_name_header: 128,
  email_header: 128,
  group_header: 128,
  role_header: 128,
  authorization_service_field: 64,
  ticket_exchange_url: 512,
  ticket_exchange_method: 16,
  ticket_exchange_payload_mode: 16,
  ticket_exchange_ticket_field: 64,
  ticket_exchange_token_field: 128,
  ticket_exchange_service_field: 64,
  user_id_field: 128,
  username_field: 128,
  display_name_field: 128,
  email_field: 128,
  group_field: 128,
  role_field: 128,
  group_mapping_mode: 32,
  role_mapping_mode: 32,
  well_known: 512,
  access_denied_message: 512,
} as const;
export type CustomOAuthStringField = keyof typeof CUSTOM_OAUTH_STRING_FIELDS;

/** Longest text of the free-form fields (PEM key, JSON mappings and policies). */
export const CUSTOM_OAUTH_TEXT_MAX = 16_384;
export const CUSTOM_OAUTH_TEXT_FIELDS = [
  'public_key',
  'trusted_proxy_cidrs',
  'group_mapping',
  'role_mapping',
  'access_policy',
  'ticket_exchange_extra_params',
  'ticket_exchange_headers',
] as const;
export type CustomOAuthTextField = (typeof CUSTOM_OAUTH_TEXT_FIELDS)[number];

export const CUSTOM_OAUTH_BOOL_FIELDS = [
  'enabled',
  'auto_register',
  'auto_merge_by_email',
  'sync_username_on_login',
  'sync_display_name_on_login',
  'sync_email_on_login',
  'sync_group_on_login',
  'sync_role_on_login',
] as const;
export type CustomOAuthBoolField = (typeof CUSTOM_OAUTH_BOOL_FIELDS)[number];

/** Longest client secret accepted (write-only: never answered). */
export const CUSTOM_OAUTH_SECRET_MAX = 512;
/** auth_style: 0 auto (as 1), 1 client id and secret in the form, 2 HTTP Basic. */
export const CUSTOM_OAUTH_AUTH_STYLES = [0, 1, 2] as const;

const stringShape = Object.fromEntries(
  Object.entries(CUSTOM_OAUTH_STRING_FIELDS).map(([k, max]) => [k, z.string().max(max).optional()]),
) as Record<CustomOAuthStringField, z.ZodOptional<z.ZodString>>;
const textShape = Object.fromEntries(
  CUSTOM_OAUTH_TEXT_FIELDS.map((k) => [k, z.string().max(CUSTOM_OAUTH_TEXT_MAX).optional()]),
) as Record<CustomOAuthTextField, z.ZodOptional<z.ZodString>>;
const boolShape = Object.fromEntries(CUSTOM_OAUTH_BOOL_FIELDS.map((k) => [k, z.boolean().optional()])) as Record<
  CustomOAuthBoolField,
  z.ZodOptional<z.ZodBoolean>
>;

/**
 * The body of a create (name and slug then required) or an update (absent fields keep their value; an empty
 * client_secret keeps the stored one, as new-api's console sends it empty when not retyped).
 */
export const customOAuthProviderBody = z.object({
  ...stringShape,
  ...textShape,
  ...boolShape,
  client_secret: z.string().max(CUSTOM_OAUTH_SECRET_MAX).optional(),
  auth_style: z.number().int().min(0).max(2).optional(),
});
export type CustomOAuthProviderBody = z.infer<typeof customOAuthProviderBody>;

/** A provider as root reads it (the client secret is never part of it; has_client_secret says whether one is set). */
export type CustomOAuthProvider = { id: number } & Record<CustomOAuthStringField | CustomOAuthTextField, string> &
  Record<CustomOAuthBoolField, boolean> & { auth_style: number; has_client_secret: boolean };

/** What the login page needs of an enabled provider (new-api's /api/status custom_oauth_providers entries). */
export interface CustomOAuthStatusEntry {
  id: number;
  name: string;
  slug: string;
  icon: string;
  kind: string;
  client_id: string;
  authorization_endpoint: string;
  scopes: string;
  jwt_source: string;
  jwt_identity_mode: string;
  jwt_acquire_mode: string;
  authorization_service_field: string;
  browser_login_supported: boolean;
}

export const customOAuthDiscoveryBody = z.object({
  well_known_url: z.string().trim().max(2048).optional().default(''),
  issuer_url: z.string().trim().max(2048).optional().default(''),
});
