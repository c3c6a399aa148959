import {
  createUserBody,
  idParam,
  manageUserBody,
  pageQuery,
  paged,
  updateUserBody,
  userPublic,
  userSearchQuery,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { toPublicUser } from './public.js';

/** User management for administrators (tier rules live in UserAdminService). */
export function userAdminRoutes(r: Router): void {
  const tags = ['users'];
  r.add({
    method: 'GET',
    url: '/api/user/',
    level: 'admin',
    summary: 'Paged user list',
    tags,
    query: pageQuery,
    response: paged(userPublic),
    handler: ({ ctx, query }) => ctx.userAdmin.page(query),
  });
  r.add({
    method: 'GET',
    url: '/api/user/search',
    level: 'admin',
    summary: 'Search users by id, username, email or display name, optionally in one group',
    tags,
    query: pageQuery.extend(userSearchQuery.shape),
    response: paged(userPublic),
    handler: ({ ctx, query }) => ctx.userAdmin.page(query),
  });
  r.add({
    method: 'GET',
    url: '/api/user/:id',
    level: 'admin',
    summary: 'One user',
    tags,
    params: idParam,
    response: userPublic,
    handler: async ({ ctx, user, params }) => toPublicUser(await ctx.userAdmin.view(user!, params.id)),
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/:id',
    level: 'admin',
    summary:
      'Delete a user below the caller (as POST /api/user/manage with action delete; the super administrator never)',
    tags,
    params: idParam,
    successMessage: 'user deleted',
    handler: async ({ ctx, user, params }) => {
      await ctx.userAdmin.manage(user!, params.id, 'delete');
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/',
    level: 'admin',
    summary: 'Create a user (role below the caller)',
    tags,
    body: createUserBody,
    response: z.object({ id: z.number().int() }),
    successMessage: 'user created',
    handler: async ({ ctx, user, body }) => ({ id: await ctx.userAdmin.create(user!, body) }),
  });
  r.add({
    method: 'PUT',
    url: '/api/user/',
    level: 'admin',
    summary: 'Edit a user of a lower level (group, quota, password, names)',
    tags,
    body: updateUserBody,
    successMessage: 'user updated',
    handler: async ({ ctx, user, body }) => {
      await ctx.userAdmin.update(user!, body);
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/manage',
    level: 'admin',
    summary:
      'promote, demote, disable, enable or delete a user, or add_quota with mode add/subtract/override and value; returns the status and role',
    tags,
    body: manageUserBody,
    response: z.object({ status: z.number().int(), role: z.number().int() }),
    successMessage: 'operation completed',
    handler: ({ ctx, user, body }) =>
      body.action === 'add_quota'
        ? ctx.userAdmin.changeQuota(user!, body.id, body.mode, body.value)
        : ctx.userAdmin.manage(user!, body.id, body.action),
  });
}
