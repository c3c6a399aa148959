import { userPublic } from '@tollway/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { ApiError, unauthorized } from '../../http/errors.js';
import { identify } from '../../http/register.js';
import type { Router } from '../../http/route.js';
import { startSession } from '../auth/sessions.js';
import { toPublicUser } from '../users/public.js';
import type { UserRow } from '../users/store.js';
import { GITHUB, LINUXDO, OIDC, TELEGRAM, WECHAT, type ExternalAccount, type ProviderInfo } from './account.js';
import { githubAccount } from './github.js';
import { linuxDoAccount } from './linuxdo.js';
import { oidcAccount } from './oidc.js';
import { oauthOf } from './service.js';
import { checkState, clearStateCookie, issueState } from './state.js';
import { TELEGRAM_FIELDS, verifyTelegramLogin } from './telegram.js';
import { wechatAccount } from './wechat.js';

const tags = ['auth'];

/** Where the browser is: ServerAddress when set (the address given to the providers), else the request's. */
function originOf(ctx: AppContext, req: FastifyRequest): string {
  return (ctx.options.get('ServerAddress').trim() || `${req.protocol}://${req.host}`).replace(/\/+$/, '');
}

/** Logs `user` in exactly as POST /api/user/login does: the session cookie, and the user as data. */
async function logIn(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, user: UserRow) {
  await startSession(ctx, req, reply, user);
  return toPublicUser(user);
}

type AccountOf = () => ExternalAccount | Promise<ExternalAccount>;

/** WeChat and Telegram sign-in (no state; the invite code comes with the call): the provider must be enabled before its account is read. */
async function signInWithoutState(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, p: ProviderInfo, account: AccountOf, aff: string | undefined) {
  const oauth = oauthOf(ctx);
  oauth.assertEnabled(p);
  return logIn(ctx, req, reply, await oauth.loginOrRegister(p, await account(), aff?.trim() ?? ''));
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
    summary: "A random state for a third-party sign-in, kept with the invite code (aff) in the caller's state cookie",
    tags,
    query: z.object({ aff: z.string().max(64).optional() }),
    response: z.string(),
    handler: ({ req, reply, query }) => issueState(req, reply, query.aff?.trim() ?? ''),
  });

  for (const [name, p] of Object.entries(REDIRECT_PROVIDERS)) {
    r.add({
      method: 'GET',
      url: `/api/oauth/${name}`,
      level: 'public',
      rateLimit: 'critical',
      summary: `${p.info.label} sign-in callback: binds for a logged-in caller (message "bind"), else logs in or registers`,
      tags,
      query: codeQuery.extend({ state: z.string().max(128).optional().default('') }),
      response: userPublic.optional(),
      raw: true,
      handler: async ({ ctx, req, reply, query }) => {
        const oauth = oauthOf(ctx);
        let result;
        try {
          oauth.assertEnabled(p.info);
          const { aff } = checkState(req, query.state);
          if (!query.code) throw new ApiError(`${p.info.label} sent no code: start the sign-in again`);
          const account = await p.account(ctx, query.code, originOf(ctx, req));
          result = await oauth.signIn(p.info, account, await identify(req, ctx), aff);
        } catch (err) {
          reply.header('set-cookie', clearStateCookie(req));
          throw err;
        }
        if (result.kind === 'bind') {
          reply.header('set-cookie', clearStateCookie(req));
          return reply.send({ success: true, message: 'bind' });
        }
        const data = await logIn(ctx, req, reply, result.user);
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
    summary: 'Log in (or register, with the invite code aff) with the verification code from the WeChat QR login server',
    tags,
    query: wechatLoginQuery,
    response: userPublic,
    successMessage: 'login success',
    handler: ({ ctx, req, reply, query }) => signInWithoutState(ctx, req, reply, WECHAT, () => wechatAccount(ctx, query.code), query.aff),
  });
  r.add({
    method: 'GET',
    url: '/api/oauth/wechat/bind',
    level: 'user',
    rateLimit: 'critical',
    summary: "Bind the WeChat account of a QR login verification code to the caller",
    tags: ['self'],
    query: codeQuery,
    successMessage: 'bind',
    handler: async ({ ctx, user, query }) => {
      const oauth = oauthOf(ctx);
      oauth.assertEnabled(WECHAT);
      await oauth.bind(WECHAT, await wechatAccount(ctx, query.code), user!);
      return undefined;
    },
  });

  r.add({
    method: 'GET',
    url: '/api/oauth/telegram/login',
    level: 'public',
    rateLimit: 'critical',
    summary: "Log in (or register, with the invite code aff) with Telegram's login widget data (signature checked with TelegramBotToken; at most a day old)",
    tags,
    query: telegramQuery,
    response: userPublic,
    successMessage: 'login success',
    handler: ({ ctx, req, reply, query }) => signInWithoutState(ctx, req, reply, TELEGRAM, () => verifyTelegramLogin(ctx, query), query.aff),
  });
  r.add({
    method: 'GET',
    url: '/api/oauth/telegram/bind',
    level: 'public',
    rateLimit: 'critical',
    summary: "Telegram login widget's redirect: binds the Telegram account to the logged-in caller, then redirects to /app/me",
    tags: ['self'],
    query: telegramQuery,
    raw: true,
    handler: async ({ ctx, req, reply, query }) => {
      const oauth = oauthOf(ctx);
      oauth.assertEnabled(TELEGRAM);
      const caller = await identify(req, ctx);
      if (!caller) throw unauthorized('not logged in: log in, then bind Telegram from the personal settings page');
      await oauth.bind(TELEGRAM, verifyTelegramLogin(ctx, query), caller);
      return reply.redirect('/app/me', 302);
    },
  });
}
