// new-api's ticket modes of the external JWT sign-in: the caller brings a ticket (CAS style), the server hands it
// to root's ticket_exchange_url, and takes either a JWT from the answer (ticket_exchange) or the user itself
// (ticket_validate: a CAS serviceValidate answer in XML or JSON).
import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { callExternal } from '../../lib/external-call.js';
import { parseMappingTable } from '../identity/mapping.js';
import { textAt, valueAt } from './claims.js';
import type { OpenedProvider } from './providers.js';

/** Longest ticket accepted. */
export const MAX_TICKET_CHARS = 4096;
/** Most CAS attributes read from one answer. */
const MAX_ATTRIBUTES = 256;
/** Longest failure text of the ticket server shown. */
const MAX_FAILURE_CHARS = 200;
/** Where an exchange answer usually carries the token, after root's ticket_exchange_token_field. */
const TOKEN_PATHS = [
  'token',
  'access_token',
  'data.token',
  'data.access_token',
  'result.token',
  'result.access_token',
  'data',
];

const ticketRefusal = (reason: string) =>
  coded(ErrorCode.CustomOAuthJwtInvalid, `the token is refused: ${reason}`, { reason: reason.slice(0, 300) });

/** What the sign-in brought besides (or instead of) a token. */
export interface TicketInput {
  ticket: string;
  callbackUrl: string;
  state: string;
}

const looksLikeJwt = (v: string) => {
  const parts = v.split('.');
  return parts.length === 3 && parts.every(Boolean);
};

/** Calls the ticket server with the ticket (root's extra params and headers, {placeholders} filled in). */
async function callTicketServer(p: OpenedProvider, input: TicketInput): Promise<string> {
  const ticket = input.ticket.trim();
  if (!ticket || ticket.length > MAX_TICKET_CHARS) throw ticketRefusal('the ticket is missing or too long');
  const fill = (v: string) =>
    v
      .replaceAll('{ticket}', ticket)
      .replaceAll('{callback_url}', input.callbackUrl)
      .replaceAll('{provider_slug}', p.slug)
      .replaceAll('{state}', input.state);
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(parseMappingTable(p.ticket_exchange_extra_params ?? ''))) params[k] = fill(v);
  params[p.ticket_exchange_ticket_field || 'ticket'] = ticket;
  if (p.ticket_exchange_service_field && input.callbackUrl) params[p.ticket_exchange_service_field] = input.callbackUrl;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(parseMappingTable(p.ticket_exchange_headers ?? ''))) headers[k] = fill(v);
  headers.accept = 'application/json, application/xml, text/plain, */*';
  const url = new URL(p.ticket_exchange_url);
  const mode = p.ticket_exchange_method === 'POST' ? p.ticket_exchange_payload_mode : 'query';
  if (mode === 'query') for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const answer = await callExternal(
    p.name,
    url.toString(),
    {
      method: p.ticket_exchange_method === 'POST' ? 'POST' : 'GET',
      headers,
      ...(mode === 'form' ? { form: params } : mode === 'json' ? { json: params } : {}),
    },
    [ticket],
  );
  if (answer.status < 200 || answer.status >= 300)
    throw ticketRefusal(`the ticket server answered HTTP ${answer.status}`);
  return answer.text;
}

/** ticket_exchange: the JWT (or, in userinfo mode, any token) the ticket server answered. */
export async function exchangeTicket(p: OpenedProvider, input: TicketInput): Promise<string> {
  const text = (await callTicketServer(p, input)).trim();
  const opaque = p.jwt_identity_mode === 'userinfo';
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  const paths = p.ticket_exchange_token_field ? [p.ticket_exchange_token_field, ...TOKEN_PATHS] : TOKEN_PATHS;
  const found = [...paths.map((path) => textAt(doc, path)), typeof doc === 'string' ? doc : text]
    .map((v) => v.trim().replace(/^bearer\s+/i, ''))
    .find((v) => looksLikeJwt(v) || (opaque && v !== '' && !v.startsWith('{')));
  if (!found) throw ticketRefusal('the ticket server answered no token');
  return found;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (v: string) => v.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => XML_ENTITIES[e]!).trim();

/** The elements read from a CAS answer (any namespace prefix): their content. */
const CAS_ELEMENTS = {
  authenticationSuccess: /<(?:[\w-]+:)?authenticationSuccess\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?authenticationSuccess>/,
  user: /<(?:[\w-]+:)?user\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?user>/,
  attributes: /<(?:[\w-]+:)?attributes\b[^>]*>([\s\S]*?)<\/(?:[\w-]+:)?attributes>/,
} as const;
const element = (xml: string, name: keyof typeof CAS_ELEMENTS) => CAS_ELEMENTS[name].exec(xml)?.[1];

function failureOf(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  const f = raw as { code?: unknown; message?: unknown; description?: unknown } | undefined;
  return [f?.code, f?.message ?? f?.description].filter((x) => typeof x === 'string' && x).join(': ');
}

/** A CAS serviceValidate answer in XML as new-api reads it: { serviceResponse, authenticationSuccess }. */
function casXml(xml: string): Record<string, unknown> {
  const failure = /<(?:[\w-]+:)?authenticationFailure\b([^>]*)>([\s\S]*?)<\/(?:[\w-]+:)?authenticationFailure>/.exec(
    xml,
  );
  if (failure) {
    const code = /code="([^"]*)"/.exec(failure[1] ?? '')?.[1] ?? '';
    const text = [code, unescapeXml(failure[2] ?? '')].filter(Boolean).join(': ');
    throw ticketRefusal(`ticket validation failed: ${text.slice(0, MAX_FAILURE_CHARS)}`);
  }
  const body = element(xml, 'authenticationSuccess');
  if (body === undefined) throw ticketRefusal('the ticket validation answer has no authenticationSuccess');
  const success: Record<string, unknown> = { user: unescapeXml(element(body, 'user') ?? '') };
  const attrs = element(body, 'attributes');
  if (attrs !== undefined) {
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const m of attrs.matchAll(/<(?:[\w-]+:)?([\w.-]+)\b[^>]*>([^<]*)<\/(?:[\w-]+:)?\1>/g)) {
      if (++n > MAX_ATTRIBUTES) break;
      const [key, value] = [m[1]!, unescapeXml(m[2]!)];
      const prev = out[key];
      out[key] = prev === undefined ? value : Array.isArray(prev) ? [...(prev as string[]), value] : [prev, value];
    }
    success.attributes = out;
  }
  return { serviceResponse: { authenticationSuccess: success }, authenticationSuccess: success };
}

/** ticket_validate: the user the ticket server vouches for, as claims (CAS XML or JSON). */
export async function validateTicket(p: OpenedProvider, input: TicketInput): Promise<Record<string, unknown>> {
  const text = (await callTicketServer(p, input)).trim();
  if (!text) throw ticketRefusal('the ticket validation answer is empty');
  if (text.startsWith('<')) return casXml(text);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw ticketRefusal('the ticket validation answer is neither XML nor JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw ticketRefusal('the ticket validation answer is not an object');
  const d = doc as Record<string, unknown>;
  const response = (valueAt(d, 'serviceResponse') as Record<string, unknown> | undefined) ?? d;
  if (response.authenticationFailure !== undefined)
    throw ticketRefusal(
      `ticket validation failed: ${failureOf(response.authenticationFailure).slice(0, MAX_FAILURE_CHARS)}`,
    );
  if (response.authenticationSuccess === undefined) return d;
  return { serviceResponse: response, authenticationSuccess: response.authenticationSuccess };
}
