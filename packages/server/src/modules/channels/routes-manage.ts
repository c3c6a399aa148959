import { ErrorCode, idParam } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { coded } from '../../lib/errors.js';
import { multiKeyManageBody, multiKeyStatusPage, multiKeysOf } from './multi-key.js';
import { ollamaModelBody, ollamaOf } from './ollama.js';
import { upstreamApplyBody, upstreamIdBody, upstreamUpdatesOf } from './upstream-updates.js';
import { splitList } from '../../core/routing/channel-row.js';

const tagQuery = z.object({ tag: z.string().trim().max(64).optional() });

/** Multi-key management, a tag's models, upstream model updates and an Ollama channel's models (new-api's tools). */
export function channelManageRoutes(r: Router): void {
  const tags = ['channels'];
  r.add({
    method: 'POST',
    url: '/api/channel/multi_key/manage',
    level: 'admin',
    summary:
      'Keys of a multi-key channel one by one: get_key_status (page, page_size, status filter; keys masked), disable_key, enable_key, enable_all_keys, disable_all_keys, delete_key (key_index), delete_disabled_keys (the automatically disabled ones)',
    tags,
    body: multiKeyManageBody,
    response: z.union([multiKeyStatusPage, z.number().int()]).optional(),
    raw: true,
    audit: {
      action: 'channel.multi_key_manage',
      target: 'channel',
      targetId: ({ body }) => (body as { channel_id: number }).channel_id,
      fields: ({ body }) => ({ action: body.action, key_index: body.key_index }),
    },
    handler: async ({ ctx, body, reply }) => {
      const { message, data } = await multiKeysOf(ctx).manage(body);
      return reply.send({ success: true, message, ...(data === undefined ? {} : { data }) });
    },
  });
  r.add({
    method: 'GET',
    url: '/api/channel/tag/models',
    level: 'admin',
    summary: "The models of the tag's channel that has the most (its comma-separated models text)",
    tags,
    query: tagQuery,
    response: z.string(),
    handler: async ({ ctx, query }) => {
      if (!query.tag) throw coded(ErrorCode.TagRequired, 'tag cannot be empty');
      let longest = '';
      let most = 0;
      for (const row of await ctx.channels.store.findByTag(query.tag)) {
        const n = splitList(row.models).length;
        if (n > most) [most, longest] = [n, row.models ?? ''];
      }
      return longest;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/channel/ollama/pull',
    level: 'admin',
    summary: "Pull a model onto an Ollama channel's server (POST /api/pull); answers once it is there",
    tags,
    body: ollamaModelBody,
    raw: true,
    handler: async ({ ctx, body, reply }) => {
      await ollamaOf(ctx).pull(await ctx.channels.get(body.channel_id), body.model_name);
      return reply.send({ success: true, message: `Model ${body.model_name} pulled successfully` });
    },
  });
  r.add({
    method: 'POST',
    url: '/api/channel/ollama/pull/stream',
    level: 'admin',
    summary:
      'Pull a model onto an Ollama server with progress: SSE `data: {status, digest, total, completed}` events, then `data: {message}` or `data: {error}`, then `data: [DONE]`',
    tags,
    body: ollamaModelBody,
    raw: true,
    handler: async ({ ctx, body, reply }) => {
      const row = await ctx.channels.get(body.channel_id);
      const closed = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) closed.abort();
      });
      const stream = ollamaOf(ctx).pullStream(row, body.model_name, closed.signal);
      reply.header('content-type', 'text/event-stream').header('cache-control', 'no-cache');
      reply.header('x-accel-buffering', 'no');
      return reply.send(stream);
    },
  });
  r.add({
    method: 'DELETE',
    url: '/api/channel/ollama/delete',
    level: 'admin',
    summary: "Delete a model from an Ollama channel's server (DELETE /api/delete)",
    tags,
    body: ollamaModelBody,
    raw: true,
    handler: async ({ ctx, body, reply }) => {
      await ollamaOf(ctx).remove(await ctx.channels.get(body.channel_id), body.model_name);
      return reply.send({ success: true, message: `Model ${body.model_name} deleted successfully` });
    },
  });
  r.add({
    method: 'GET',
    url: '/api/channel/ollama/version/:id',
    level: 'admin',
    summary: "The version of an Ollama channel's server (GET /api/version); data is {version}",
    tags,
    params: idParam,
    response: z.object({ version: z.string() }),
    handler: async ({ ctx, params }) => ({
      version: await ollamaOf(ctx).version(await ctx.channels.get(params.id)),
    }),
  });
  r.add({
    method: 'POST',
    url: '/api/channel/upstream_updates/detect',
    level: 'admin',
    summary:
      "Compare a channel's upstream model list with its models and keep the difference in its settings; data is {channel_id, channel_name, add_models, remove_models, last_check_time, auto_added_models}",
    tags,
    body: upstreamIdBody,
    handler: ({ ctx, body }) => upstreamUpdatesOf(ctx).detect(body.id),
  });
  r.add({
    method: 'POST',
    url: '/api/channel/upstream_updates/detect_all',
    level: 'admin',
    summary:
      'detect for every enabled channel whose settings have upstream_model_update_check_enabled; data is {processed_channels, changed_channels, detected_add_models, detected_remove_models, failed_channel_ids}',
    tags,
    handler: ({ ctx }) => upstreamUpdatesOf(ctx).detectAll(),
  });
  r.add({
    method: 'POST',
    url: '/api/channel/upstream_updates/apply',
    level: 'admin',
    summary:
      'Apply chosen pending changes of a channel: add_models join its models, remove_models leave them, ignore_models are not proposed again; data is {id, added_models, removed_models, ignored_models, remaining_models, remaining_remove_models, models, settings}',
    tags,
    body: upstreamApplyBody,
    handler: ({ ctx, body }) => upstreamUpdatesOf(ctx).apply(body),
  });
  r.add({
    method: 'POST',
    url: '/api/channel/upstream_updates/apply_all',
    level: 'admin',
    summary:
      'Apply every pending change of every enabled channel with detection on; data is {processed_channels, added_models, removed_models (counts), failed_channel_ids, results}',
    tags,
    handler: ({ ctx }) => upstreamUpdatesOf(ctx).applyAll(),
  });
}
