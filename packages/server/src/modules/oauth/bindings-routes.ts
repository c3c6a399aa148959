import { idParam } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { oauthBindingsOf } from './bindings.js';

const binding = z.object({
  provider_id: z.union([z.string(), z.number()]),
  provider_name: z.string(),
  provider_slug: z.string(),
  provider_icon: z.string(),
  provider_user_id: z.string(),
});
const providerParam = z.object({ provider_id: z.string().max(32) });

/** The third-party accounts bound to a user (new-api's paths): the caller's own, or an administrator's view of a user. */
export function oauthBindingRoutes(r: Router): void {
  const tags = ['auth'];
  r.add({
    method: 'GET',
    url: '/api/user/oauth/bindings',
    level: 'user',
    summary:
      "The caller's bound third-party accounts (provider_id is a built-in provider's key: github, oidc, linuxdo, wechat, telegram; or a root-defined provider's numeric id)",
    tags,
    response: z.array(binding),
    handler: ({ ctx, user }) => oauthBindingsOf(ctx).own(user!),
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/oauth/bindings/:provider_id',
    level: 'user',
    summary: "Release the caller's account of a provider (refused when it is the only way to sign in)",
    tags,
    params: providerParam,
    successMessage: 'unbound',
    handler: ({ ctx, user, params }) => oauthBindingsOf(ctx).unbindOwn(user!, params.provider_id),
  });
  r.add({
    method: 'GET',
    url: '/api/user/:id/oauth/bindings',
    level: 'admin',
    summary: "A user's bound third-party accounts (users below the caller's level)",
    tags,
    params: idParam,
    response: z.array(binding),
    handler: ({ ctx, user, params }) => oauthBindingsOf(ctx).ofUser(user!, params.id),
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/:id/oauth/bindings/:provider_id',
    level: 'admin',
    summary:
      "Release a user's account of a provider (users below the caller's level; refused when it is their only way to sign in)",
    tags,
    params: idParam.extend(providerParam.shape),
    successMessage: 'unbound',
    handler: ({ ctx, user, params }) => oauthBindingsOf(ctx).unbindOfUser(user!, params.id, params.provider_id),
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/:id/bindings/:binding_type',
    level: 'admin',
    summary:
      "Clear a user's binding: a provider's account (github, oidc, linuxdo, wechat, telegram) or email; never their last way to sign in",
    tags,
    params: idParam.extend({ binding_type: z.string().max(32) }),
    successMessage: 'binding cleared',
    handler: ({ ctx, user, params }) => oauthBindingsOf(ctx).clearOfUser(user!, params.id, params.binding_type),
  });
}
