import {
  channelIdsBody,
  channelListQuery,
  channelListRow,
  channelPublic,
  channelSearchQuery,
  createChannelBody,
  idParam,
  paged,
  updateChannelBody,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { withHealth } from './health.js';
import { keyLookup } from './key-lookup.js';
import { channelKeyRoutes } from './routes-keys.js';
import { toPublicChannel } from './view.js';

/** Channel CRUD and lists (administrators). Keys are masked in every answer; POST /api/channel/:id/key reveals one (root). */
export function channelRoutes(r: Router): void {
  const tags = ['channels'];
  r.add({
    method: 'GET',
    url: '/api/channel/',
    level: 'admin',
    summary:
      'Paged channels (id_sort: by id desc, else priority desc then id desc; tag_mode: one row per tag with children)',
    tags,
    query: channelListQuery,
    response: paged(channelListRow),
    handler: async ({ ctx, query }) => withHealth(ctx.breakers, await ctx.channels.list(query)),
  });
  r.add({
    method: 'GET',
    url: '/api/channel/search',
    level: 'admin',
    summary:
      'Search channels: keyword (part of the name, tag or base_url, or the id; for root also a whole key, audited), group (member), model (part); same paging and modes as the list',
    tags,
    query: channelSearchQuery,
    response: paged(channelListRow),
    handler: async ({ ctx, req, user, query }) => {
      const keyIds = await keyLookup(ctx, req, user, query.keyword);
      return withHealth(ctx.breakers, await ctx.channels.list({ ...query, keyIds }));
    },
  });
  r.add({
    method: 'GET',
    url: '/api/channel/:id',
    level: 'admin',
    summary: 'One channel (key masked)',
    tags,
    params: idParam,
    response: channelPublic,
    handler: async ({ ctx, params }) => toPublicChannel(await ctx.channels.get(params.id)),
  });
  channelKeyRoutes(r);
  r.add({
    method: 'POST',
    url: '/api/channel/',
    level: 'admin',
    summary: 'Create a channel: single, batch (one channel per key line) or multi_to_single (one multi-key channel)',
    tags,
    body: createChannelBody,
    response: z.object({ ids: z.array(z.number().int()) }),
    successMessage: 'channel created',
    handler: async ({ ctx, body }) => ({ ids: await ctx.channels.create(body) }),
  });
  r.add({
    method: 'PUT',
    url: '/api/channel/',
    level: 'admin',
    summary:
      'Update a channel: the given fields replace the stored ones (an empty or masked key keeps the key); {id,status|priority|weight} for row actions',
    tags,
    body: updateChannelBody,
    response: channelPublic,
    successMessage: 'channel updated',
    handler: async ({ ctx, body }) => toPublicChannel(await ctx.channels.update(body)),
  });
  r.add({
    method: 'DELETE',
    url: '/api/channel/disabled',
    level: 'admin',
    summary: 'Delete every disabled channel (status 2 or 3); data is the count',
    tags,
    response: z.number().int(),
    handler: ({ ctx }) => ctx.channels.removeDisabled(),
  });
  r.add({
    method: 'DELETE',
    url: '/api/channel/:id',
    level: 'admin',
    summary: 'Delete a channel and its abilities',
    tags,
    params: idParam,
    successMessage: 'channel deleted',
    handler: async ({ ctx, params }) => {
      await ctx.channels.remove(params.id);
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/channel/batch',
    level: 'admin',
    summary: 'Delete the given channels; data is the count deleted',
    tags,
    body: channelIdsBody,
    response: z.number().int(),
    handler: ({ ctx, body }) => ctx.channels.removeMany(body.ids),
  });
  r.add({
    method: 'POST',
    url: '/api/channel/fix',
    level: 'admin',
    summary:
      'Rebuild every ability from the channels table (one transaction); data.success is the number of channels rebuilt, data.fails those that failed (0: all or nothing)',
    tags,
    response: z.object({ success: z.number().int(), fails: z.number().int() }),
    handler: async ({ ctx }) => ({ success: await ctx.channels.fixAbilities(), fails: 0 }),
  });
}
