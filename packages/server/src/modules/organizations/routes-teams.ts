import {
  orgIdParam,
  orgRedeemBody,
  orgTeam,
  orgTeamBody,
  orgTeamMemberParam,
  orgTeamParam,
  orgToken,
  orgTokenBody,
  orgTokenParam,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { requireOrg } from './access.js';
import { redeemForOrg } from './wallet.js';
import { teamsOf } from './teams.js';
import { orgTokensOf } from './tokens.js';

const tags = ['organization'];

/** Teams, tokens and the shared wallet of an organization (routes.ts has the organization and its members). */
export function orgTeamRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/org/:id/teams',
    level: 'user',
    summary: 'Teams with their members and token counts',
    tags,
    params: orgIdParam,
    response: z.array(orgTeam),
    handler: async ({ ctx, user, params }) => teamsOf(ctx).list(await requireOrg(ctx.db, user!, params.id, 'org.read')),
  });
  r.add({
    method: 'POST',
    url: '/api/org/:id/teams',
    level: 'user',
    summary: 'Create a team',
    tags,
    params: orgIdParam,
    body: orgTeamBody,
    response: orgTeam,
    handler: async ({ ctx, user, params, body }) =>
      teamsOf(ctx).create(await requireOrg(ctx.db, user!, params.id, 'teams.manage', { write: true }), body.name),
  });
  r.add({
    method: 'PUT',
    url: '/api/org/:id/teams/:team_id',
    level: 'user',
    summary: 'Rename a team',
    tags,
    params: orgTeamParam,
    body: orgTeamBody,
    response: z.null(),
    handler: async ({ ctx, user, params, body }) =>
      teamsOf(ctx).rename(
        await requireOrg(ctx.db, user!, params.id, 'teams.manage', { write: true }),
        params.team_id,
        body.name,
      ),
  });
  r.add({
    method: 'DELETE',
    url: '/api/org/:id/teams/:team_id',
    level: 'user',
    summary: 'Delete a team: its places and budgets go, its tokens stay with their members',
    tags,
    params: orgTeamParam,
    response: z.null(),
    handler: async ({ ctx, user, params }) =>
      teamsOf(ctx).remove(await requireOrg(ctx.db, user!, params.id, 'teams.manage'), params.team_id),
  });
  r.add({
    method: 'PUT',
    url: '/api/org/:id/teams/:team_id/members/:user_id',
    level: 'user',
    summary: 'Put a member of the organization in the team',
    tags,
    params: orgTeamMemberParam,
    response: z.null(),
    handler: async ({ ctx, user, params }) =>
      teamsOf(ctx).addMember(
        await requireOrg(ctx.db, user!, params.id, 'teams.manage', { write: true }),
        params.team_id,
        params.user_id,
      ),
  });
  r.add({
    method: 'DELETE',
    url: '/api/org/:id/teams/:team_id/members/:user_id',
    level: 'user',
    summary: 'Take a member out of the team (their tokens of the team keep working, attributed to no team)',
    tags,
    params: orgTeamMemberParam,
    response: z.null(),
    handler: async ({ ctx, user, params }) =>
      teamsOf(ctx).removeMember(
        await requireOrg(ctx.db, user!, params.id, 'teams.manage'),
        params.team_id,
        params.user_id,
      ),
  });

  r.add({
    method: 'GET',
    url: '/api/org/:id/tokens',
    level: 'user',
    summary: "The organization's tokens (a member: their own), keys masked",
    tags,
    params: orgIdParam,
    response: z.array(orgToken),
    handler: async ({ ctx, user, params }) =>
      orgTokensOf(ctx).list(await requireOrg(ctx.db, user!, params.id, 'tokens.own'), user!),
  });
  r.add({
    method: 'POST',
    url: '/api/org/:id/tokens',
    level: 'user',
    summary: 'Issue a token of the organization (to oneself; admins: to a member) in a team; the key is answered once',
    tags,
    params: orgIdParam,
    body: orgTokenBody,
    response: orgToken,
    handler: async ({ ctx, user, params, body }) =>
      orgTokensOf(ctx).create(await requireOrg(ctx.db, user!, params.id, 'tokens.own', { write: true }), user!, body),
  });
  r.add({
    method: 'PUT',
    url: '/api/org/:id/tokens/:token_id',
    level: 'user',
    summary: 'Change a token of the organization (own; admins: any)',
    tags,
    params: orgTokenParam,
    body: orgTokenBody,
    response: orgToken,
    handler: async ({ ctx, user, params, body }) =>
      orgTokensOf(ctx).update(
        await requireOrg(ctx.db, user!, params.id, 'tokens.own', { write: true }),
        user!,
        params.token_id,
        body,
      ),
  });
  r.add({
    method: 'DELETE',
    url: '/api/org/:id/tokens/:token_id',
    level: 'user',
    summary: 'Delete a token of the organization (own; admins: any); the key stops at once',
    tags,
    params: orgTokenParam,
    response: z.null(),
    handler: async ({ ctx, user, params }) =>
      orgTokensOf(ctx).remove(await requireOrg(ctx.db, user!, params.id, 'tokens.own'), user!, params.token_id),
  });
  r.add({
    method: 'POST',
    url: '/api/org/:id/redeem',
    level: 'user',
    rateLimit: 'critical',
    summary: "Credit the organization's shared wallet with a redemption code",
    tags,
    params: orgIdParam,
    body: orgRedeemBody,
    response: z.object({ quota: z.number().int() }),
    handler: async ({ ctx, user, params, body }) =>
      redeemForOrg(ctx, await requireOrg(ctx.db, user!, params.id, 'wallet.credit', { write: true }), body.key),
  });
}
