import { ErrorCode, userPublic } from '@tollway/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { coded } from '../../lib/errors.js';
import { authorize, identifyBySession } from '../auth/guard.js';
import type { Router } from '../../http/route.js';
import { refuseCrossSite } from '../../http/same-site.js';
import { completeSignIn } from '../auth/sign-in.js';
import { SessionOrigins } from '../auth/session-origin.js';
import type { UserRow } from '../users/store.js';
import { GITHUB, LINUXDO, OIDC, TELEGRAM, WECHAT, type ExternalAccount, type ProviderInfo } from './account.js';
import { githubAccount } from './github.js';
import { linuxDoAccount } from './linuxdo.js';
import { oidcAccount } from './oidc.js';
import { oauthOf } from './service.js';
import { bindsSession, checkState, clearStateCookie, issueState } from './state.js';
import { TELEGRAM_FIELDS, verifyTelegramLogin } from './telegram.js';
import { wechatAccount } from './wechat.js';
import { bindingSessionKey, consoleUserHeader, redirectOrigin } from './request.js';

const tags = ['auth'];

/** Logs `user` in by provider `p` exactly as POST /api/user/login does: the session cookie, and the user as data. */
const logIn = (ctx: AppContext, req: FastifyRequest, reply: FastifyReply, user: UserRow, p: ProviderInfo) =>
  completeSignIn(ctx, req, reply, user, SessionOrigins.oauth(p.key));

type AccountOf = () => ExternalAccount | Promise<ExternalAccount>;

/**
 * WeChat and Telegram sign-in (no state; the invite code comes with the call): the provider must be enabled before
 * its account is read. The console calls these itself, so a request a browser marks as sent from another site
 * (Sec-Fetch-Site) is refused: a link cannot sign a visitor in to someone else's account.
 */
async function signInWithoutState(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  p: ProviderInfo,
  account: AccountOf,
  aff: string | undefined,
) {
  refuseCrossSite(req, `${p.label} sign-in must start from this site's login page`, ErrorCode.OAuthCrossSite, {
    provider: p.label,
  });
  const oauth = oauthOf(ctx);
  oauth.assertEnabled(p);
  return logIn(ctx, req, reply, await oauth.loginOrRegister(p, await account(), aff?.trim() ?? ''), p);
}

interface RedirectProvider {
  info: ProviderInfo;
  account(ctx: AppContext, code: string, origin: string): Promise<ExternalAccount>;
}

const REDIRECT_PROVIDERS: Record<string, RedirectProvider> = {
  github: { info: GITHUB, account: (ctx, code) => githubAccount(ctx, code) },
  oidc: { info: OIDC, account: oidcAccount },
  linuxdo: { info: LINUXDO, account: linuxDoAccount },
};

const codeQuery = z.object({ code: z.string().max(1024) });
/** The invite code a sign-up without a state (WeChat, Telegram) carries itself; not part of any signature. */
const affField = z.string().max(64).optional();
const wechatLoginQuery = codeQuery.extend({ aff: affField });
const telegramValue = z.string().max(1024).optional();
const telegramQuery = z.object({
  ...Object.fromEntries(TELEGRAM_FIELDS.map((k) => [k, telegramValue])),
  id: z.string().min(1, 'id is required').max(64),
  auth_date: z.string().min(1, 'auth_date is required').max(20),
  hash: z.string().min(1, 'hash is required').max(128),
  lang: z.string().max(16).optional(),
  aff: affField,
});

/** Third-party sign-in: state, the redirect providers' callbacks, WeChat codes and Telegram's login widget. */
export function oauthRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/oauth/state',
    level: 'public',
    summary:
      "A random state for a third-party sign-in, kept with the invite code (aff) in the caller's state cookie; asked for by a signed-in console (session and New-Api-User), it is a bind state for that session",
    tags,
    query: z.object({ aff: z.string().max(64).optional() }),
    response: z.string(),
    handler: async ({ ctx, req, reply, query }) => {
      return issueState(req, reply, query.aff?.trim() ?? '', await bindingSessionKey(ctx, req));
    },
  });

  for (const [name, p] of Object.entries(REDIRECT_PROVIDERS)) {
    r.add({
      method: 'GET',
      url: `/api/oauth/${name}`,
      level: 'public',
      rateLimit: 'critical',
      summary: `${p.info.label} sign-in callback: with a bind state of the caller's session binds (message "bind"), else logs in or registers`,
      tags,
      query: codeQuery.extend({ state: z.string().max(128).optional().default('') }),
      response: userPublic.optional(),
      raw: true,
      handler: async ({ ctx, req, reply, query }) => {
        const oauth = oauthOf(ctx);
        let result;
        try {
          oauth.assertEnabled(p.info);
          const state = checkState(req, query.state);
          if (!query.code)
            throw coded(ErrorCode.OAuthNoCode, `${p.info.label} sent no code: start the sign-in again`, {
              provider: p.info.label,
            });
          const account = await p.account(ctx, query.code, redirectOrigin(ctx, req));
          // Only a state the same session asked for binds; any other state signs in.
          const session = await identifyBySession(req, ctx);
          const binder = session && bindsSession(state.session, session.key) ? session.user : undefined;
          result = await oauth.signIn(p.info, account, binder, state.aff);
        } catch (err) {
          reply.header('set-cookie', clearStateCookie(req));
          throw err;
        }
        if (result.kind === 'bind') {
          reply.header('set-cookie', clearStateCookie(req));
          return reply.send({ success: true, message: 'bind' });
        }
        const data = await logIn(ctx, req, reply, result.user, p.info);
        reply.header('set-cookie', clearStateCookie(req));
        return reply.send({ success: true, message: 'login success', data });
      },
    });
  }

  r.add({
    method: 'GET',
    url: '/api/oauth/wechat',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'Log in (or register, with the invite code aff) with the verification code from the WeChat QR login server',
    tags,
    query: wechatLoginQuery,
    response: userPublic,
    successMessage: 'login success',
    handler: ({ ctx, req, reply, query }) =>
      signInWithoutState(ctx, req, reply, WECHAT, () => wechatAccount(ctx, query.code), query.aff),
  });
  // The code comes in the query (new-api's older console) or in a JSON body (its current one).
  for (const method of ['GET', 'POST'] as const)
    r.add({
      method,
      url: '/api/oauth/wechat/bind',
      level: 'user',
      rateLimit: 'critical',
      summary: `Bind the WeChat account of a QR login verification code to the caller (code in the ${method === 'GET' ? 'query' : 'JSON body'})`,
      tags: ['self'],
      ...(method === 'GET' ? { query: codeQuery } : { body: codeQuery }),
      successMessage: 'bind',
      handler: async ({ ctx, user, query, body }) => {
        const oauth = oauthOf(ctx);
        oauth.assertEnabled(WECHAT);
        const { code } = (method === 'GET' ? query : body) as z.infer<typeof codeQuery>;
        await oauth.bind(WECHAT, await wechatAccount(ctx, code), user!);
        return undefined;
      },
    });

  r.add({
    method: 'GET',
    url: '/api/oauth/telegram/login',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "Log in (or register, with the invite code aff) with Telegram's login widget data (signature checked with TelegramBotToken; at most a day old)",
    tags,
    query: telegramQuery,
    response: userPublic,
    successMessage: 'login success',
    handler: ({ ctx, req, reply, query }) =>
      signInWithoutState(ctx, req, reply, TELEGRAM, () => verifyTelegramLogin(ctx, query), query.aff),
  });
  r.add({
    method: 'GET',
    url: '/api/oauth/telegram/bind',
    level: 'public',
    rateLimit: 'critical',
    summary:
      "Bind the Telegram account of the login widget's data to the caller: a console call (New-Api-User) answers message \"bind\"; the widget's redirect must carry a bind state of the caller's session (GET /api/oauth/state) and is redirected to /app/me",
    tags: ['self'],
    query: telegramQuery.extend({ state: z.string().max(128).optional() }),
    raw: true,
    handler: async ({ ctx, req, reply, query }) => {
      const oauth = oauthOf(ctx);
      oauth.assertEnabled(TELEGRAM);
      if (consoleUserHeader(req)) {
        const caller = (await authorize(req, ctx, 'user'))!;
        await oauth.bind(TELEGRAM, verifyTelegramLogin(ctx, query), caller);
        return reply.send({ success: true, message: 'bind' });
      }
      const session = await identifyBySession(req, ctx);
      if (!session)
        throw coded(
          ErrorCode.OAuthBindLogin,
          'not logged in: log in, then bind Telegram from the personal settings page',
          { provider: 'Telegram' },
          401,
        );
      let state;
      try {
        state = checkState(req, query.state ?? '');
      } finally {
        reply.header('set-cookie', clearStateCookie(req));
      }
      if (!bindsSession(state.session, session.key))
        throw coded(
          ErrorCode.OAuthBindElsewhere,
          'this bind was not started from your personal settings page: bind Telegram from there again',
          { provider: 'Telegram' },
          403,
        );
      await oauth.bind(TELEGRAM, verifyTelegramLogin(ctx, query), session.user);
      return reply.redirect('/app/me', 302);
    },
  });
}
