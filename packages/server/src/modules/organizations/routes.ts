import {
  orgCreateBody,
  orgIdParam,
  orgInvitation,
  orgInvitationBody,
  orgInvitationCodeBody,
  orgInvitationCreated,
  orgInvitationParam,
  orgInvitationPreview,
  orgMember,
  orgMemberParam,
  orgMemberRoleBody,
  organization,
  orgResellerBody,
  orgStatusBody,
  orgUpdateBody,
  paged,
  pageQuery,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { addOrgRoute } from './org-route.js';
import { invitationsOf } from './invitations.js';
import { membersOf } from './members.js';
import { orgTeamRoutes } from './routes-teams.js';
import { organizationsOf } from './service.js';

const tags = ['organization'];

/**
 * Organizations (docs/operating/organizations.md): every /api/org/:id route passes requireOrg first — a caller who is
 * not a member (nor a system admin) is told the organization does not exist; a role without the capability is refused.
 */
export function organizationRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/org/self',
    level: 'user',
    summary: "The caller's organizations, with their role and the shared wallet's balance",
    tags,
    response: z.array(organization),
    handler: ({ ctx, user }) => organizationsOf(ctx).mine(user!),
  });
  r.add({
    method: 'POST',
    url: '/api/org',
    level: 'user',
    summary: 'Create an organization (the caller becomes its owner; OrganizationCreateByUsers for non-admins)',
    tags,
    body: orgCreateBody,
    response: organization,
    handler: ({ ctx, user, body }) => organizationsOf(ctx).create(user!, body.name),
  });
  r.add({
    method: 'GET',
    url: '/api/org/all',
    level: 'admin',
    summary: 'Every organization (system admins), newest first; keyword matches the name',
    tags,
    query: pageQuery.extend({ keyword: z.string().max(64).optional() }),
    response: paged(organization),
    handler: ({ ctx, query }) => organizationsOf(ctx).all(query),
  });
  r.add({
    method: 'GET',
    url: '/api/org/invitation',
    level: 'user',
    summary: 'What an invitation code offers (organization, role), before accepting it',
    tags,
    query: orgInvitationCodeBody,
    response: orgInvitationPreview,
    handler: ({ ctx, user, query }) => invitationsOf(ctx).preview(user!, query.code),
  });
  r.add({
    method: 'POST',
    url: '/api/org/invitation/accept',
    level: 'user',
    rateLimit: 'critical',
    summary:
      'Accept an invitation: the caller joins with its role (once per code; e-mail invitations: that address only)',
    tags,
    body: orgInvitationCodeBody,
    response: organization,
    handler: ({ ctx, user, body }) => invitationsOf(ctx).accept(user!, body.code),
  });
  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id',
    need: 'org.read',
    summary: 'One organization (members)',
    tags,
    params: orgIdParam,
    response: organization,
    handler: ({ ctx, access }) => organizationsOf(ctx).view(access),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id',
    need: 'org.manage',
    write: true,
    summary: 'Rename, set the budget-alert webhook (admins), set own prices (owner, when root allows)',
    tags,
    params: orgIdParam,
    body: orgUpdateBody,
    response: organization,
    handler: ({ ctx, body, access }) => organizationsOf(ctx).update(access, body),
  });
  addOrgRoute(r, {
    method: 'DELETE',
    url: '/api/org/:id',
    need: 'org.own',
    summary: 'Delete the organization (owners): its wallet account is disabled, its tokens stop',
    tags,
    params: orgIdParam,
    response: z.null(),
    handler: ({ ctx, access }) => organizationsOf(ctx).remove(access),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id/reseller',
    level: 'root',
    need: 'org.read',
    summary: 'Let the organization set its own prices for its members (a markup over the system price), or stop it',
    tags,
    params: orgIdParam,
    body: orgResellerBody,
    response: organization,
    handler: ({ ctx, body, access }) => organizationsOf(ctx).setReseller(access, body.reseller),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id/status',
    level: 'admin',
    need: 'org.read',
    summary: 'Enable (1) or disable (2) the organization and its wallet account',
    tags,
    params: orgIdParam,
    body: orgStatusBody,
    response: organization,
    handler: ({ ctx, body, access }) => organizationsOf(ctx).setStatus(access, body.status),
  });

  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/members',
    need: 'org.read',
    summary: 'Members with their roles and teams',
    tags,
    params: orgIdParam,
    response: z.array(orgMember),
    handler: ({ ctx, access }) => membersOf(ctx).list(access),
  });
  addOrgRoute(r, {
    method: 'PUT',
    url: '/api/org/:id/members/:user_id',
    need: 'members.manage',
    write: true,
    summary: "Change a member's role (the owner role: owners only; the last owner stays)",
    tags,
    params: orgMemberParam,
    body: orgMemberRoleBody,
    response: z.null(),
    handler: ({ ctx, params, body, access }) => membersOf(ctx).setRole(access, params.user_id, body.role),
  });
  addOrgRoute(r, {
    method: 'DELETE',
    url: '/api/org/:id/members/:user_id',
    need: 'org.read',
    summary: 'Remove a member, or leave (own id): their team places go and their organization tokens are disabled',
    tags,
    params: orgMemberParam,
    response: z.null(),
    handler: ({ ctx, user, params, access }) => membersOf(ctx).remove(access, user!, params.user_id),
  });
  addOrgRoute(r, {
    method: 'GET',
    url: '/api/org/:id/invitations',
    need: 'members.manage',
    summary: 'Invitations, newest first',
    tags,
    params: orgIdParam,
    response: z.array(orgInvitation),
    handler: ({ ctx, access }) => invitationsOf(ctx).list(access),
  });
  addOrgRoute(r, {
    method: 'POST',
    url: '/api/org/:id/invitations',
    need: 'members.manage',
    write: true,
    rateLimit: 'critical',
    summary: 'Invite by link, or by mail to an address (the code is answered once)',
    tags,
    params: orgIdParam,
    body: orgInvitationBody,
    response: orgInvitationCreated,
    handler: ({ ctx, user, body, access }) => invitationsOf(ctx).create(access, user!, body),
  });
  addOrgRoute(r, {
    method: 'DELETE',
    url: '/api/org/:id/invitations/:invitation_id',
    need: 'members.manage',
    summary: 'Revoke a pending invitation',
    tags,
    params: orgInvitationParam,
    response: z.null(),
    handler: ({ ctx, params, access }) => invitationsOf(ctx).revoke(access, params.invitation_id),
  });
  orgTeamRoutes(r);
}
