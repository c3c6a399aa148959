import {
  customOAuthDiscoveryBody,
  customOAuthProviderBody,
  ErrorCode,
  idParam,
  userPublic,
  type CustomOAuthKind,
} from '@tollway/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { refuseCrossSite } from '../../http/same-site.js';
import { coded } from '../../lib/errors.js';
import { identifyBySession } from '../auth/guard.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { completeSignIn } from '../auth/sign-in.js';
import { bindingSessionKey, redirectOrigin } from '../oauth/request.js';
import { bindsSession, checkState, clearStateCookie, issueState } from '../oauth/state.js';
import { authorizeUrl, codeIdentity, newSignInSecrets } from './code-flow.js';
import { headerIdentity, jwtIdentity } from './external.js';
import { MAX_JWT_CHARS as MAX_JWT_BODY_TOKEN } from './jwt.js';
import { MAX_TICKET_CHARS } from './ticket.js';
import { customOAuthProvidersOf, type OpenedProvider } from './providers.js';
import { CustomSignIn, type ExternalIdentity } from './signin.js';

const tags = ['auth'];
/** Longest provider refusal text shown. */
const PROVIDER_REASON_MAX = 200;
/** Longest callback (service) URL and state of a ticket sign-in. */
const MAX_CALLBACK_URL = 2048;
const MAX_STATE = 256;
const slugParam = z.object({ provider: z.string().max(64) });

/** Logs in (or starts the second step) as `user`, by provider `p`: the session remembers the provider. */
async function logInWith(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  p: OpenedProvider,
  who: ExternalIdentity,
) {
  const result = await new CustomSignIn(ctx).signIn(p, who, undefined, '');
  if (result.kind !== 'login') throw new Error('unreachable: a sign-in without a binder binds nothing');
  return completeSignIn(ctx, req, reply, result.user, SessionOrigins.customOAuth(p.id));
}

/** Root's providers (new-api's /api/custom-oauth-provider). */
function providerRoutes(r: Router): void {
  const base = '/api/custom-oauth-provider';
  r.add({
    method: 'POST',
    url: `${base}/discovery`,
    level: 'root',
    summary:
      "Reads an OpenID provider's well-known document (well_known_url, or issuer_url + /.well-known/openid-configuration) through the outbound guard; answers { well_known_url, discovery }, saves nothing",
    tags: ['options'],
    body: customOAuthDiscoveryBody,
    audit: false,
    handler: ({ ctx, body }) => customOAuthProvidersOf(ctx).discover(body.well_known_url, body.issuer_url),
  });
  r.add({
    method: 'GET',
    url: `${base}/`,
    level: 'root',
    summary:
      'Every root-defined sign-in provider (the client secret is never answered; has_client_secret says if one is set)',
    tags: ['options'],
    handler: ({ ctx }) => customOAuthProvidersOf(ctx).list(),
  });
  r.add({
    method: 'GET',
    url: `${base}/:id`,
    level: 'root',
    summary: 'One root-defined sign-in provider',
    tags: ['options'],
    params: idParam,
    handler: ({ ctx, params }) => customOAuthProvidersOf(ctx).get(params.id),
  });
  r.add({
    method: 'POST',
    url: `${base}/`,
    level: 'root',
    summary:
      'Create a sign-in provider (kind oauth_code, jwt_direct or trusted_header); the client secret is sealed at rest',
    tags: ['options'],
    body: customOAuthProviderBody,
    successMessage: 'created',
    handler: ({ ctx, body }) => customOAuthProvidersOf(ctx).create(body),
  });
  r.add({
    method: 'PUT',
    url: `${base}/:id`,
    level: 'root',
    summary:
      'Change a sign-in provider (absent fields and an empty client_secret keep their value); disabling it ends the sessions it opened',
    tags: ['options'],
    params: idParam,
    body: customOAuthProviderBody,
    successMessage: 'updated',
    handler: async ({ ctx, params, body }) => {
      const { provider, before } = await customOAuthProvidersOf(ctx).update(params.id, body);
      const lostSignIn = Number(before.enabled) === 1 && (!provider.enabled || provider.kind !== before.kind);
      if (lostSignIn)
        await ctx.users.credentials.endIdentity('identity_provider_disabled', SessionOrigins.customOAuth(params.id));
      return provider;
    },
  });
  r.add({
    method: 'DELETE',
    url: `${base}/:id`,
    level: 'root',
    summary: "Delete a sign-in provider with every user's binding to it; the sessions it opened end",
    tags: ['options'],
    params: idParam,
    successMessage: 'deleted',
    handler: async ({ ctx, params }) => {
      const holders = await customOAuthProvidersOf(ctx).delete(params.id);
      await ctx.users.credentials.endIdentity('identity_provider_disabled', SessionOrigins.customOAuth(params.id));
      for (const userId of holders) await ctx.users.notifyChanged(userId);
      return undefined;
    },
  });
}

/** The authorization-code sign-in: its start (authorize URL with state, PKCE, nonce) and new-api's callback path. */
function codeRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/oauth/custom/:provider/authorize',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "Starts a root-defined provider's sign-in: answers { url } (its authorization endpoint with state, PKCE S256 and, for the openid scope, a nonce, kept in the caller's state cookie); from a signed-in console (New-Api-User) it is a bind",
    tags,
    params: slugParam,
    query: z.object({ aff: z.string().max(64).optional() }),
    response: z.object({ url: z.string() }),
    handler: async ({ ctx, req, reply, params, query }) => {
      const p = await customOAuthProvidersOf(ctx).enabled(params.provider, 'oauth_code');
      const binding = await bindingSessionKey(ctx, req);
      const secrets = newSignInSecrets(p);
      const state = issueState(req, reply, query.aff?.trim() ?? '', binding, { providerId: p.id, ...secrets });
      return { url: authorizeUrl(p, redirectOrigin(ctx, req), state, secrets) };
    },
  });
  r.add({
    method: 'GET',
    url: '/api/oauth/:provider',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'A root-defined provider\'s sign-in callback (its slug): the code exchanged (with the PKCE verifier), the ID token checked (signature, issuer, audience, expiry, nonce), the user mapped; with a bind state of the caller\'s session binds (message "bind"), else logs in or registers',
    tags,
    params: slugParam,
    query: z.object({
      code: z.string().max(2048).optional().default(''),
      state: z.string().max(128).optional().default(''),
      error: z.string().max(256).optional(),
      error_description: z.string().max(1024).optional(),
    }),
    response: userPublic.optional(),
    raw: true,
    handler: async ({ ctx, req, reply, params, query }) => {
      let result;
      let p: OpenedProvider;
      try {
        p = await customOAuthProvidersOf(ctx).enabled(params.provider, 'oauth_code');
        const state = checkState(req, query.state);
        if (state.providerId !== undefined && state.providerId !== p.id)
          throw coded(
            ErrorCode.OAuthStateInvalid,
            'sign-in state does not match: start the sign-in again from the login page',
            undefined,
            403,
          );
        // The provider's own refusal (a user it disabled, consent denied) comes back as error / error_description.
        if (!query.code && query.error) {
          const reason = (query.error_description || query.error).slice(0, PROVIDER_REASON_MAX);
          throw coded(ErrorCode.OAuthCodeRefused, `${p.name} refused the sign-in (${reason})`, {
            provider: p.name,
            reason,
          });
        }
        if (!query.code)
          throw coded(ErrorCode.OAuthNoCode, `${p.name} sent no code: start the sign-in again`, { provider: p.name });
        const who = await codeIdentity(p, query.code, redirectOrigin(ctx, req), state);
        const session = await identifyBySession(req, ctx);
        const binder = session && bindsSession(state.session, session.key) ? session.user : undefined;
        result = await new CustomSignIn(ctx).signIn(p, who, binder, state.aff);
      } catch (err) {
        reply.header('set-cookie', clearStateCookie(req));
        throw err;
      }
      if (result.kind === 'bind') {
        reply.header('set-cookie', clearStateCookie(req));
        return reply.send({ success: true, message: 'bind' });
      }
      const data = await completeSignIn(ctx, req, reply, result.user, SessionOrigins.customOAuth(p.id));
      reply.header('set-cookie', clearStateCookie(req));
      return reply.send({ success: true, message: 'login success', data });
    },
  });
}

const jwtBody = z.object({
  token: z.string().max(MAX_JWT_BODY_TOKEN).optional(),
  id_token: z.string().max(MAX_JWT_BODY_TOKEN).optional(),
  access_token: z.string().max(MAX_JWT_BODY_TOKEN).optional(),
  jwt: z.string().max(MAX_JWT_BODY_TOKEN).optional(),
  // The ticket modes: the ticket, and the service (callback) URL and state it was issued for.
  ticket: z.string().max(MAX_TICKET_CHARS).optional(),
  callback_url: z.string().max(MAX_CALLBACK_URL).optional(),
  service: z.string().max(MAX_CALLBACK_URL).optional(),
  state: z.string().max(MAX_STATE).optional(),
});

/** new-api's company sign-ins: an external JWT, or the headers of a trusted identity proxy. Off unless root enabled one. */
function externalRoutes(r: Router): void {
  r.add({
    method: 'POST',
    url: '/api/auth/external/:provider/jwt/login',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "Sign in with a JWT of an enabled jwt_direct provider (body token, or Authorization: Bearer): claims mode checks its signature by jwks_url or public_key, issuer, audience and expiry; userinfo mode asks the provider's user info endpoint; the ticket modes take a ticket (body ticket, callback_url, state) to ticket_exchange_url for a JWT (ticket_exchange) or the user (ticket_validate, CAS XML or JSON)",
    tags,
    params: slugParam,
    body: jwtBody.optional(),
    response: userPublic,
    successMessage: 'login success',
    handler: async ({ ctx, req, reply, params, body }) => {
      refuseCrossSite(req, 'sign-in must start from this site', ErrorCode.OAuthCrossSite, {
        provider: params.provider,
      });
      const p = await customOAuthProvidersOf(ctx).enabled(params.provider, 'jwt_direct');
      const given =
        body?.token || body?.id_token || body?.jwt || body?.access_token || String(req.headers.authorization ?? '');
      const ticket = {
        ticket: body?.ticket ?? '',
        callbackUrl: body?.callback_url || body?.service || '',
        state: body?.state ?? '',
      };
      return logInWith(ctx, req, reply, p, await jwtIdentity(p, given, ticket));
    },
  });
  r.add({
    method: 'POST',
    url: '/api/auth/external/:provider/header/login',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "Sign in as the user an identity proxy names in headers (an enabled trusted_header provider): only connections from its trusted_proxy_cidrs (the socket's address, never X-Forwarded-For) are read; a header sent twice is refused",
    tags,
    params: slugParam,
    response: userPublic,
    successMessage: 'login success',
    handler: async ({ ctx, req, reply, params }) => {
      refuseCrossSite(req, 'sign-in must start from this site', ErrorCode.OAuthCrossSite, {
        provider: params.provider,
      });
      const p = await customOAuthProvidersOf(ctx).enabled(params.provider, 'trusted_header' satisfies CustomOAuthKind);
      return logInWith(ctx, req, reply, p, headerIdentity(p, req));
    },
  });
}

export function customOAuthRoutes(r: Router): void {
  providerRoutes(r);
  codeRoutes(r);
  externalRoutes(r);
}
