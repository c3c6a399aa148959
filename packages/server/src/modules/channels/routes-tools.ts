import {
  batchTagBody,
  channelTestQuery,
  channelTestResult,
  editTagBody,
  fetchModelsBody,
  idParam,
  tagBody,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { balancesOf, firstKey } from './balances.js';
import { knownModels } from './known-models.js';
import { usableGroups } from '../groups/usable.js';

const count = z.number().int();

/** Tag tools, tests, balances and model lists. */
export function channelToolRoutes(r: Router): void {
  const tags = ['channels'];
  r.add({
    method: 'POST',
    url: '/api/channel/batch/tag',
    level: 'admin',
    summary: 'Set the tag of the selected channels (tag null removes it); data is the count',
    tags,
    body: batchTagBody,
    response: count,
    handler: ({ ctx, body }) => ctx.channels.tags.batchTag(body.ids, body.tag ?? ''),
  });
  r.add({
    method: 'PUT',
    url: '/api/channel/tag',
    level: 'admin',
    summary: "Edit every channel of a tag (blank fields unchanged; new_tag '' dissolves the tag); data is the count",
    tags,
    body: editTagBody,
    response: count,
    handler: ({ ctx, body }) => ctx.channels.tags.edit(body),
  });
  for (const [action, status] of [
    ['enabled', 1],
    ['disabled', 2],
  ] as const) {
    r.add({
      method: 'POST',
      url: `/api/channel/tag/${action}`,
      level: 'admin',
      summary: `Set every channel of the tag to status ${status}; data is the count`,
      tags,
      body: tagBody,
      response: count,
      handler: ({ ctx, body }) => ctx.channels.tags.setStatus(body.tag, status),
    });
  }
  r.add({
    method: 'GET',
    url: '/api/channel/test/:id',
    level: 'admin',
    summary: 'Test a channel with a one-token chat completion; answers {success, message, time (seconds)} without data',
    tags,
    params: idParam,
    query: channelTestQuery,
    response: channelTestResult,
    raw: true,
    handler: async ({ ctx, params, query, reply }) =>
      reply.send(await ctx.channels.tester.testOne(ctx, params.id, query.model)),
  });
  r.add({
    method: 'GET',
    url: '/api/channel/test',
    level: 'admin',
    summary: 'Test every enabled and auto-disabled channel in the background (auto enable/disable per the options)',
    tags,
    successMessage: 'channel test started; refresh the list to see the results',
    handler: ({ ctx }) => {
      ctx.channels.tester.startAll(ctx);
      return undefined;
    },
  });
  r.add({
    method: 'GET',
    url: '/api/channel/update_balance/:id',
    level: 'admin',
    summary: "Query a channel's upstream balance and store it",
    tags,
    params: idParam,
    response: z.object({ balance: z.number(), balance_updated_time: z.number().int() }),
    handler: ({ ctx, params }) => balancesOf(ctx).updateOne(params.id),
  });
  r.add({
    method: 'GET',
    url: '/api/channel/update_balance',
    level: 'admin',
    summary: 'Update the balance of every enabled channel whose type supports it',
    tags,
    response: z.object({ updated: count, failed: count }),
    handler: ({ ctx }) => balancesOf(ctx).updateAll(),
  });
  r.add({
    method: 'GET',
    url: '/api/channel/fetch_models/:id',
    level: 'admin',
    summary: "List the models a channel's upstream offers (GET /v1/models with its first key)",
    tags,
    params: idParam,
    response: z.array(z.string()),
    handler: async ({ ctx, params }) => {
      const row = await ctx.channels.get(params.id);
      return ctx.providers.listModels({ type: row.type, baseUrl: row.base_url, key: firstKey(row) }, ctx.log);
    },
  });
  r.add({
    method: 'POST',
    url: '/api/channel/fetch_models',
    level: 'root',
    summary: 'List the models of an upstream before the channel exists (first key only); root, as in new-api',
    tags,
    body: fetchModelsBody,
    response: z.array(z.string()),
    handler: ({ ctx, body }) =>
      ctx.providers.listModels(
        { type: body.type, baseUrl: body.base_url, key: body.key.split(/[\n,]/)[0]!.trim() },
        ctx.log,
      ),
  });
  r.add({
    method: 'GET',
    url: '/api/channel/models',
    level: 'admin',
    summary: 'Every known model (type defaults, pricing tables, channels) with an id each',
    tags,
    response: z.array(z.object({ id: z.string(), object: z.literal('model'), owned_by: z.string() })),
    handler: ({ ctx }) => {
      const extra = new Set<string>([
        ...Object.keys(ctx.options.json<Record<string, number>>('ModelRatio')),
        ...Object.keys(ctx.options.json<Record<string, number>>('ModelPrice')),
      ]);
      for (const ch of ctx.channelCache.all()) for (const m of ch.models) extra.add(m);
      return knownModels(extra);
    },
  });
  r.add({
    method: 'GET',
    url: '/api/channel/models_enabled',
    level: 'admin',
    summary: 'Model names routable in any group (enabled channels)',
    tags,
    response: z.array(z.string()),
    handler: ({ ctx }) => ctx.channelCache.allModels(),
  });
  r.add({
    method: 'GET',
    url: '/api/user/models',
    level: 'user',
    summary: "Model names the caller can route: enabled channels in the caller's group and the groups open to it",
    tags: ['self'],
    response: z.array(z.string()),
    handler: ({ ctx, user }) => {
      const groups = Object.keys(usableGroups(ctx.options, user!.group));
      const out = new Set<string>();
      for (const g of groups) for (const m of ctx.channelCache.modelsForGroup(g)) out.add(m);
      return [...out].sort();
    },
  });
}
