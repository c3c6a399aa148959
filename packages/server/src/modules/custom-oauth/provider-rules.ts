// A custom provider's settings: defaults, checks (new-api's rules, with Tollway's stricter role mapping) and the
// shape root reads.
import {
  CUSTOM_OAUTH_BOOL_FIELDS,
  CUSTOM_OAUTH_KINDS,
  CUSTOM_OAUTH_STRING_FIELDS,
  CUSTOM_OAUTH_TEXT_FIELDS,
  ErrorCode,
  type CustomOAuthKind,
  type CustomOAuthProvider,
  type CustomOAuthProviderBody,
  type CustomOAuthStatusEntry,
} from '@tollway/shared';
import net from 'node:net';
import { coded } from '../../lib/errors.js';
import { isMappingMode, mappingTableProblem, roleOf } from '../identity/mapping.js';
import { parseAccessPolicy } from './claims.js';
import type { NewProviderRow, ProviderRow } from './store.js';

/** The paths of the built-in sign-ins under /api/oauth/ (a custom slug may not take one). */
export const RESERVED_SLUGS = new Set(['github', 'oidc', 'linuxdo', 'wechat', 'telegram', 'email', 'state', 'custom']);
const SLUG = /^[a-z0-9-]+$/;
const HTTP_URL = /^https?:\/\/[^\s/]+/i;
/** Most trusted proxy entries of one provider. */
const MAX_PROXY_ENTRIES = 64;

/** The settings as a full row: the stored ones, changed by the body's present fields. */
export type ProviderSettings = Omit<NewProviderRow, 'created_at' | 'updated_at'>;

const invalid = (reason: string) =>
  coded(ErrorCode.CustomOAuthInvalid, `invalid provider settings: ${reason}`, { reason });

/** An empty row: every text '', every switch off, auth_style 0. */
export function blankSettings(): ProviderSettings {
  const row: Record<string, string | number> = { client_secret: '', auth_style: 0 };
  for (const k of Object.keys(CUSTOM_OAUTH_STRING_FIELDS)) row[k] = '';
  for (const k of CUSTOM_OAUTH_TEXT_FIELDS) row[k] = '';
  for (const k of CUSTOM_OAUTH_BOOL_FIELDS) row[k] = 0;
  return row as ProviderSettings;
}

/** Applies the body's present fields to `base` (an empty client_secret keeps the stored one). */
export function applyBody(base: ProviderSettings, body: CustomOAuthProviderBody): ProviderSettings {
  const row = { ...base } as Record<string, string | number>;
  for (const k of [...Object.keys(CUSTOM_OAUTH_STRING_FIELDS), ...CUSTOM_OAUTH_TEXT_FIELDS]) {
    const v = (body as Record<string, unknown>)[k];
    if (typeof v === 'string') row[k] = v.trim();
  }
  for (const k of CUSTOM_OAUTH_BOOL_FIELDS) {
    const v = (body as Record<string, unknown>)[k];
    if (typeof v === 'boolean') row[k] = v ? 1 : 0;
  }
  if (body.auth_style !== undefined) row.auth_style = body.auth_style;
  return row as ProviderSettings;
}

/** A list of trusted proxies: a JSON array or a comma/space separated list of addresses and CIDR blocks. */
export function proxyEntries(raw: string): string[] {
  const text = raw.trim();
  if (!text) return [];
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid('trusted_proxy_cidrs must be a JSON array of addresses or CIDR blocks');
    }
    if (!Array.isArray(parsed) || parsed.some((e) => typeof e !== 'string'))
      throw invalid('trusted_proxy_cidrs must be a JSON array of addresses or CIDR blocks');
    return (parsed as string[]).map((e) => e.trim()).filter(Boolean);
  }
  return text.split(/[\s,]+/).filter(Boolean);
}

/** Whether an entry is an IP address or a CIDR block. */
export function isProxyEntry(entry: string): boolean {
  const [addr, bits, extra] = entry.split('/');
  if (extra !== undefined || !addr || !net.isIP(addr)) return false;
  if (bits === undefined) return true;
  const max = net.isIPv6(addr) ? 128 : 32;
  return /^\d+$/.test(bits) && Number(bits) <= max;
}

const isUrl = (v: string) => HTTP_URL.test(v) && URL.canParse(v);

function checkUrl(row: ProviderSettings, field: keyof ProviderSettings, required: boolean): void {
  const v = String(row[field] ?? '');
  if (!v) {
    if (required) throw invalid(`${field} is required`);
    return;
  }
  if (!isUrl(v)) throw invalid(`${field} must be an http or https URL`);
}

function checkOAuthCode(row: ProviderSettings): void {
  if (!row.client_id) throw invalid('client_id is required');
  checkUrl(row, 'authorization_endpoint', true);
  checkUrl(row, 'token_endpoint', true);
  checkUrl(row, 'user_info_endpoint', true);
  checkUrl(row, 'jwks_url', false);
}

const ACQUIRE_MODES = ['direct_token', 'ticket_exchange', 'ticket_validate'];
const TICKET_PAYLOADS = ['query', 'form', 'json'];

/** new-api's ticket modes: where the ticket goes (ticket_exchange_url, GET or POST, query / form / JSON). */
function checkTicket(row: ProviderSettings): void {
  checkUrl(row, 'ticket_exchange_url', true);
  row.ticket_exchange_method = (row.ticket_exchange_method || 'GET').toUpperCase();
  if (row.ticket_exchange_method !== 'GET' && row.ticket_exchange_method !== 'POST')
    throw invalid('ticket_exchange_method is invalid');
  row.ticket_exchange_payload_mode = (row.ticket_exchange_payload_mode || 'query').toLowerCase();
  if (row.ticket_exchange_payload_mode === 'multipart')
    throw coded(
      ErrorCode.CustomOAuthTicketUnsupported,
      'multipart ticket payloads are not available on this server: use query, form or json',
    );
  if (!TICKET_PAYLOADS.includes(row.ticket_exchange_payload_mode))
    throw invalid('ticket_exchange_payload_mode is invalid');
  for (const t of ['ticket_exchange_extra_params', 'ticket_exchange_headers'] as const) {
    const problem = mappingTableProblem(row[t]);
    if (problem) throw invalid(`${t} ${problem}`);
  }
  if (row.jwt_acquire_mode === 'ticket_validate' && row.jwt_identity_mode === 'userinfo')
    throw invalid('jwt_direct providers using ticket_validate mode only support claims identity mode');
}

function checkJwtDirect(row: ProviderSettings): void {
  const acquire = (row.jwt_acquire_mode || 'direct_token').toLowerCase();
  if (!ACQUIRE_MODES.includes(acquire)) throw invalid('jwt_acquire_mode is invalid');
  row.jwt_acquire_mode = acquire;
  const identity = (row.jwt_identity_mode || 'claims').toLowerCase();
  if (identity !== 'claims' && identity !== 'userinfo') throw invalid('jwt_identity_mode is invalid');
  row.jwt_identity_mode = identity;
  if (acquire !== 'direct_token') checkTicket(row);
  if (identity === 'claims' && acquire !== 'ticket_validate') {
    if (!row.issuer) throw invalid('issuer is required for jwt_direct providers using claims mode');
    if (!row.jwks_url && !row.public_key)
      throw invalid('jwks_url or public_key is required for jwt_direct providers using claims mode');
    checkUrl(row, 'jwks_url', false);
  } else if (identity === 'userinfo') checkUrl(row, 'user_info_endpoint', true);
  row.jwt_source = (row.jwt_source || 'query').toLowerCase();
  if (!['query', 'fragment', 'body'].includes(row.jwt_source)) throw invalid('jwt_source is invalid');
  row.jwt_header ||= 'Authorization';
  row.authorization_service_field ||= 'service';
  row.ticket_exchange_method ||= 'GET';
  row.ticket_exchange_payload_mode ||= 'query';
  row.ticket_exchange_ticket_field ||= 'ticket';
}

function checkTrustedHeader(row: ProviderSettings): void {
  if (!row.external_id_header) throw invalid('external_id_header is required for trusted_header providers');
  const entries = proxyEntries(row.trusted_proxy_cidrs);
  if (entries.length === 0) throw invalid('trusted_proxy_cidrs is required for trusted_header providers');
  if (entries.length > MAX_PROXY_ENTRIES) throw invalid(`trusted_proxy_cidrs has more than ${MAX_PROXY_ENTRIES}`);
  const bad = entries.find((e) => !isProxyEntry(e));
  if (bad !== undefined) throw invalid(`trusted_proxy_cidrs: ${bad.slice(0, 64)} is not an address or CIDR block`);
  for (const h of ['external_id_header', 'username_header', 'display_name_header', 'email_header'] as const)
    if (row[h] && !/^[A-Za-z0-9-]+$/.test(row[h])) throw invalid(`${h} is not a header name`);
}

/** Checks and completes a provider's settings (defaults as new-api fills them); throws the coded refusal. */
export function checkSettings(row: ProviderSettings): ProviderSettings {
  if (!row.name) throw invalid('name is required');
  row.slug = row.slug.toLowerCase();
  if (!row.slug) throw invalid('slug is required');
  if (!SLUG.test(row.slug)) throw invalid('slug must contain only lowercase letters, numbers and hyphens');
  if (RESERVED_SLUGS.has(row.slug))
    throw coded(ErrorCode.CustomOAuthSlugReserved, 'this slug is the name of a built-in sign-in method');
  row.kind = (row.kind || 'oauth_code').toLowerCase();
  if (!(CUSTOM_OAUTH_KINDS as readonly string[]).includes(row.kind)) throw invalid('kind is invalid');
  if (row.auth_style !== 0 && row.auth_style !== 1 && row.auth_style !== 2) throw invalid('auth_style is invalid');
  const kind = row.kind as CustomOAuthKind;
  if (kind === 'oauth_code') checkOAuthCode(row);
  else if (kind === 'jwt_direct') checkJwtDirect(row);
  else checkTrustedHeader(row);
  if (kind !== 'trusted_header') {
    row.user_id_field ||= 'sub';
    row.username_field ||= 'preferred_username';
    row.display_name_field ||= 'name';
    row.email_field ||= 'email';
    row.scopes ||= 'openid profile email';
  }
  for (const m of ['group_mapping_mode', 'role_mapping_mode'] as const) {
    row[m] = (row[m] || 'explicit_only').toLowerCase();
    if (!isMappingMode(row[m])) throw invalid(`${m} is invalid`);
  }
  for (const t of ['group_mapping', 'role_mapping'] as const) {
    const problem = mappingTableProblem(row[t]);
    if (problem) throw invalid(`${t} ${problem}`);
  }
  if (row.role_mapping.trim())
    for (const [k, v] of Object.entries(JSON.parse(row.role_mapping) as Record<string, string>))
      if (!roleOf(v)) throw invalid(`role_mapping: ${k.slice(0, 64)} maps to ${v.slice(0, 32)} (use common or admin)`);
  if (row.access_policy.trim()) {
    try {
      parseAccessPolicy(row.access_policy);
    } catch (err) {
      throw invalid((err as Error).message);
    }
  }
  if (row.well_known) checkUrl(row, 'well_known', false);
  return row;
}

/** The provider as root reads it: every setting but the client secret. */
export function toProvider(row: ProviderRow): CustomOAuthProvider {
  const out: Record<string, unknown> = {
    id: row.id,
    auth_style: row.auth_style,
    has_client_secret: !!row.client_secret,
  };
  for (const k of [...Object.keys(CUSTOM_OAUTH_STRING_FIELDS), ...CUSTOM_OAUTH_TEXT_FIELDS])
    out[k] = (row as unknown as Record<string, string | null>)[k] ?? '';
  for (const k of CUSTOM_OAUTH_BOOL_FIELDS) out[k] = Number(row[k]) === 1;
  return out as CustomOAuthProvider;
}

/** Whether the login page can start this provider's sign-in in the browser (new-api's browser_login_supported). */
export function browserLoginSupported(row: ProviderRow): boolean {
  if (Number(row.enabled) !== 1) return false;
  if (row.kind === 'oauth_code') return !!row.authorization_endpoint && !!row.client_id;
  if (row.kind === 'jwt_direct') return !!row.authorization_endpoint && !!row.client_id && row.jwt_source !== 'body';
  return !!row.external_id_header && proxyEntries(row.trusted_proxy_cidrs ?? '').length > 0;
}

/** An enabled provider as /api/status lists it for the login page. */
export function toStatusEntry(row: ProviderRow): CustomOAuthStatusEntry {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    icon: row.icon,
    kind: row.kind,
    client_id: row.client_id,
    authorization_endpoint: row.authorization_endpoint,
    scopes: row.scopes,
    jwt_source: row.jwt_source,
    jwt_identity_mode: row.jwt_identity_mode,
    jwt_acquire_mode: row.jwt_acquire_mode,
    authorization_service_field: row.authorization_service_field,
    browser_login_supported: browserLoginSupported(row),
  };
}
