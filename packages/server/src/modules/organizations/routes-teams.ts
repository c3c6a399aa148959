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
import { addOrgRoute } from './org-route.js';
import { redeemForOrg } from './wallet.js';
import { teamsOf } from './teams.js';
import { orgTokensOf } from './tokens.js';

const tags = ['organization'];

/** Teams, tokens and the shared wallet of an organization (routes.ts has the organization and its members). */
export function orgTeamRoutes(r: Router): void {
  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/teams',
    need: 'org.read',
    summary: 'Teams with their members and token counts',
    tags,
    params: orgIdParam,
    response: z.array(orgTeam),
    handler: ({ ctx, access }) => teamsOf(ctx).list(access),
  });
  addOrgRoute(r, {
    method: 'POST',
    url: '/api/org/:id/teams',
    need: 'teams.manage',
    write: true,
    summary: 'Create a team',
    tags,
    params: orgIdParam,
    body: orgTeamBody,
    response: orgTeam,
    handler: ({ ctx, body, access }) => teamsOf(ctx).create(access, body.name),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id/teams/:team_id',
    need: 'teams.manage',
    write: true,
    summary: 'Rename a team',
    tags,
    params: orgTeamParam,
    body: orgTeamBody,
    response: z.null(),
    handler: ({ ctx, params, body, access }) => teamsOf(ctx).rename(access, params.team_id, body.name),
  });
  addOrgRoute(r, {
    method: 'DELETE',
    url: '/api/org/:id/teams/:team_id',
    need: 'teams.manage',
    summary: 'Delete a team: its places and budgets go, its tokens stay with their members',
    tags,
    params: orgTeamParam,
    response: z.null(),
    handler: ({ ctx, params, access }) => teamsOf(ctx).remove(access, params.team_id),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id/teams/:team_id/members/:user_id',
    need: 'teams.manage',
    write: true,
    summary: 'Put a member of the organization in the team',
    tags,
    params: orgTeamMemberParam,
    response: z.null(),
    handler: ({ ctx, params, access }) => teamsOf(ctx).addMember(access, params.team_id, params.user_id),
  });
  addOrgRoute(r, {
    method: 'DELETE',
    url: '/api/org/:id/teams/:team_id/members/:user_id',
    need: 'teams.manage',
    summary: 'Take a member out of the team (their tokens of the team keep working, attributed to no team)',
    tags,
    params: orgTeamMemberParam,
    response: z.null(),
    handler: ({ ctx, params, access }) => teamsOf(ctx).removeMember(access, params.team_id, params.user_id),
  });

  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/tokens',
    need: 'tokens.own',
    summary: "The organization's tokens (a member: their own), keys masked",
    tags,
    params: orgIdParam,
    response: z.array(orgToken),
    handler: ({ ctx, user, access }) => orgTokensOf(ctx).list(access, user!),
  });
  addOrgRoute(r, {
    method: 'POST',
    url: '/api/org/:id/tokens',
    need: 'tokens.own',
    write: true,
    summary: 'Issue a token of the organization (to oneself; admins: to a member) in a team; the key is answered once',
    tags,
    params: orgIdParam,
    body: orgTokenBody,
    response: orgToken,
    handler: ({ ctx, user, body, access }) => orgTokensOf(ctx).create(access, user!, body),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id/tokens/:token_id',
    need: 'tokens.own',
    write: true,
    summary: 'Change a token of the organization (own; admins: any)',
    tags,
    params: orgTokenParam,
    body: orgTokenBody,
    response: orgToken,
    handler: ({ ctx, user, params, body, access }) => orgTokensOf(ctx).update(access, user!, params.token_id, body),
  });
  addOrgRoute(r, {
    method: 'DELETE',
    url: '/api/org/:id/tokens/:token_id',
    need: 'tokens.own',
    summary: 'Delete a token of the organization (own; admins: any); the key stops at once',
    tags,
    params: orgTokenParam,
    response: z.null(),
    handler: ({ ctx, user, params, access }) => orgTokensOf(ctx).remove(access, user!, params.token_id),
  });
  addOrgRoute(r, {
    method: 'POST',
    url: '/api/org/:id/redeem',
    need: 'wallet.credit',
    write: true,
    rateLimit: 'critical',
    summary: "Credit the organization's shared wallet with a redemption code",
    tags,
    params: orgIdParam,
    body: orgRedeemBody,
    response: z.object({ quota: z.number().int() }),
    handler: ({ ctx, body, access }) => redeemForOrg(ctx, access, body.key),
  });
}
