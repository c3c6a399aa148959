// new-api's company sign-ins behind an identity proxy: a JWT the caller already holds (jwt_direct), or the user
// named in request headers by a proxy whose address root trusts (trusted_header).
import { ErrorCode } from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import net from 'node:net';
import { coded } from '../../lib/errors.js';
import { callExternal } from '../../lib/external-call.js';
import { plainAddress } from '../../lib/trusted-proxies.js';
import { candidatesOf } from '../identity/mapping.js';
import { userObjectOf } from '../oauth/provider-http.js';
import { checkPolicy, identityOf } from './identity.js';
import { verifyJwt } from './jwt.js';
import { proxyEntries } from './provider-rules.js';
import type { OpenedProvider } from './providers.js';
import type { ExternalIdentity } from './signin.js';
import { exchangeTicket, validateTicket, type TicketInput } from './ticket.js';

/** Longest header value read. */
const MAX_HEADER_VALUE = 1024;

/** A token as sent, without a "Bearer " prefix. */
export const bareToken = (raw: string) => raw.trim().replace(/^bearer\s+/i, '');

/**
 * The user of an external token: in claims mode the token's own claims once its signature (jwks_url or
 * public_key), issuer, audience and expiry are checked; in userinfo mode what the provider's user info
 * endpoint answers for it (the provider is the judge of the token). In the ticket modes the token comes from the
 * ticket server (ticket_exchange), or the ticket server's answer is the user itself (ticket_validate).
 */
export async function jwtIdentity(p: OpenedProvider, raw: string, ticket?: TicketInput): Promise<ExternalIdentity> {
  if (p.jwt_acquire_mode === 'ticket_validate' || p.jwt_acquire_mode === 'ticket_exchange') {
    const input = ticket ?? { ticket: '', callbackUrl: '', state: '' };
    if (p.jwt_acquire_mode === 'ticket_validate') return identityOf(p, await validateTicket(p, input));
    raw = await exchangeTicket(p, input);
  }
  const token = bareToken(raw);
  if (!token)
    throw coded(ErrorCode.CustomOAuthJwtInvalid, 'the token is refused: it is missing', { reason: 'it is missing' });
  if (p.jwt_identity_mode === 'userinfo') {
    const header = p.jwt_header || 'Authorization';
    const value = header.toLowerCase() === 'authorization' ? `Bearer ${token}` : token;
    const info = userObjectOf(
      p.name,
      await callExternal(p.name, p.user_info_endpoint, { method: 'GET', headers: { [header]: value } }, [token]),
    );
    return identityOf(p, info);
  }
  const claims = await verifyJwt(token, {
    jwksUrl: p.jwks_url,
    publicKey: p.public_key ?? '',
    issuer: p.issuer,
    audience: p.audience || undefined,
    code: ErrorCode.CustomOAuthJwtInvalid,
  });
  return identityOf(p, claims as Record<string, unknown>);
}

/** Whether the connection (the socket's own address, never X-Forwarded-For) comes from a trusted proxy. */
export function fromTrustedProxy(p: OpenedProvider, req: FastifyRequest): boolean {
  const address = plainAddress(req.socket.remoteAddress ?? '');
  if (!address) return false;
  const list = new net.BlockList();
  for (const entry of proxyEntries(p.trusted_proxy_cidrs ?? '')) {
    const [addr, bits] = entry.split('/') as [string, string | undefined];
    const type = net.isIPv6(addr) ? 'ipv6' : 'ipv4';
    try {
      if (bits === undefined) list.addAddress(addr, type);
      else list.addSubnet(addr, Number(bits), type);
    } catch {
      // An entry saved before a check existed: it trusts nothing.
    }
  }
  return list.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4');
}

/** A header's values (a repeated header, or one joined by commas by Node, count as several). */
function headerValues(req: FastifyRequest, name: string): string[] {
  const raw = req.headers[name.toLowerCase()];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return list.map((v) => v.trim()).filter(Boolean);
}

/**
 * One header's single value ('' when absent); a header sent twice is refused (which one would be true?), and so is
 * a list in one line for the identity headers (`commaIsList`: an id, a login name or an address has no comma).
 */
function single(req: FastifyRequest, name: string, commaIsList = true): string {
  if (!name) return '';
  const values = headerValues(req, name);
  const rawCount = req.raw.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === name.toLowerCase()).length;
  const listed = commaIsList && (values[0] ?? '').includes(',');
  if (values.length > 1 || rawCount > 1 || listed || (values[0] ?? '').length > MAX_HEADER_VALUE)
    throw coded(ErrorCode.CustomOAuthHeaderDuplicate, `the identity header ${name} has more than one value`, {
      header: name,
    });
  return values[0] ?? '';
}

/** Group or role values of a header: one comma-separated list (sent once). */
function listOf(req: FastifyRequest, name: string): string[] {
  const value = single(req, name, false);
  return value ? candidatesOf(value.split(',')) : [];
}

/**
 * The user a trusted proxy names. A request from any other address is refused before a header is read; the
 * external id header must be present once.
 */
export function headerIdentity(p: OpenedProvider, req: FastifyRequest): ExternalIdentity {
  if (!fromTrustedProxy(p, req))
    throw coded(
      ErrorCode.CustomOAuthUntrustedSource,
      'the request does not come from a trusted proxy: header sign-in refused',
      undefined,
      403,
    );
  const id = single(req, p.external_id_header);
  if (!id)
    throw coded(ErrorCode.CustomOAuthHeaderMissing, `the request carries no identity header ${p.external_id_header}`, {
      header: p.external_id_header,
    });
  const who: ExternalIdentity = {
    id,
    username: single(req, p.username_header),
    displayName: single(req, p.display_name_header, false),
    email: single(req, p.email_header),
    emailVerified: true,
    groups: listOf(req, p.group_header),
    roles: listOf(req, p.role_header),
  };
  checkPolicy(p, {
    id: who.id,
    username: who.username,
    display_name: who.displayName,
    email: who.email,
    groups: who.groups,
    roles: who.roles,
  });
  return who;
}
