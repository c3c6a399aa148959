// The midjourney-proxy API as new-api serves it: /mj/* and its /mj-fast, /mj-relax, /mj-turbo twins.
import { quotaReceipt } from '../../billing/receipt.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { request, type Dispatcher } from 'undici';
import { ChannelStatus } from '@tollway/shared';
import { guardedDispatcher } from '../../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError } from '../../../lib/outbound-guard.js';
import { authenticate, authenticateKey, type Identified } from '../../entry/authenticate.js';
import { RelayError } from '../../pipeline/errors.js';
import { identifiedCaller, keyFirst } from '../../entry/key-first.js';
import { relayFailure } from '../../pipeline/respond.js';
import type { RelayContext } from '../../pipeline/services.js';
import { applyTaskState, submitTask, upstreamOf } from '../service.js';
import { taskById } from '../store.js';
import type { TaskRefused } from '../types.js';
import { MJ_SUBMIT_KINDS, planSubmit, type MjSubmitKind } from './actions.js';
import { midjourneyPlatform, upstreamGet } from './platform.js';
import { keyIndexOf, mjTaskByMjId, ownMjTask, ownMjTasks } from './store.js';
import { mjTaskView, upstreamBody } from './upstream-body.js';
import {
  MJ_QUOTA_TYPE,
  MjCode,
  MjError,
  MjStatus,
  mjBadRequest,
  mjQuotaRefusal,
  parseMjBody,
  type MjSubmitAnswer,
} from './wire.js';

/** new-api's mode prefixes; the prefix is dropped before the upstream call and kept as the task's mode. */
export const MJ_MODE_PREFIXES = ['', '/mj-fast', '/mj-relax', '/mj-turbo'] as const;
const MAX_LIST_IDS = 100;
/** The status code 3 is reported with: the channel's account cannot serve, like a refused key. */
const ACCOUNT_UNAVAILABLE_STATUS = 401;
const NOT_FOUND = 404;

const answerOf = (err: unknown, ctx: RelayContext): MjError => {
  if (err instanceof MjError) return err;
  const r = relayFailure(err, ctx.log);
  if (r.type === MJ_QUOTA_TYPE) return mjQuotaRefusal(r.status);
  return new MjError(r.status, r.status >= 500 ? MjCode.Unknown : MjCode.RequestError, r.message);
};

/** The caller's `sk-` token: `Authorization: Bearer sk-…` or midjourney-proxy's `mj-api-secret` header. */
async function caller(ctx: RelayContext, req: FastifyRequest): Promise<Identified> {
  const secret = req.headers['mj-api-secret'];
  if (!req.headers.authorization && typeof secret === 'string' && secret) {
    const key = secret.trim().replace(/^Bearer\s+/i, '');
    return authenticateKey(key.startsWith('sk-') ? key.slice(3) : key, req.ip, ctx.relay.tokens);
  }
  return authenticate(req, ctx.relay.tokens);
}

type Handler = (
  req: FastifyRequest,
  who: Identified,
) => Promise<{ status?: number; body: unknown; headers?: Record<string, string> }>;

/** A refusal in midjourney-proxy's shape. */
const refuse = (ctx: RelayContext) => (reply: FastifyReply, err: unknown) => {
  const e = answerOf(err, ctx);
  return reply.code(e.status).send(e.body);
};

/**
 * A route for an authenticated caller: the key is checked from the headers before the body is read; every
 * refusal in midjourney-proxy's shape.
 */
const authed = (ctx: RelayContext, fn: Handler) => ({
  onRequest: keyFirst((req) => caller(ctx, req), refuse(ctx)),
  handler: async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    try {
      const out = await fn(req, identifiedCaller(req) ?? (await caller(ctx, req)));
      return reply
        .code(out.status ?? 200)
        .headers(out.headers ?? {})
        .send(out.body);
    } catch (err) {
      return refuse(ctx)(reply, err);
    }
  },
});

const modeOf = (prefix: string): string => prefix.replace('/mj-', '');

/** One submit: checked, the earlier task it acts on found (the caller's own), billed and sent by the task engine. */
async function submit(
  ctx: RelayContext,
  req: FastifyRequest,
  who: Identified,
  kind: MjSubmitKind,
  prefix: string,
): Promise<{ status: number; body: MjSubmitAnswer; headers?: Record<string, string> }> {
  const body = parseMjBody(req.body);
  const plan = planSubmit(kind, body);
  let channelId: number | undefined;
  let keyIndex: number | undefined;
  let prompt = typeof body.prompt === 'string' ? body.prompt : kind === 'swap' ? 'InsightFace' : '';
  if (plan.originTaskId) {
    const origin = await ownMjTask(ctx.db, who.auth.userId, plan.originTaskId);
    if (!origin) throw mjBadRequest('task_not_found');
    if (
      ctx.options.bool('MjActionCheckSuccessEnabled') &&
      origin.status !== MjStatus.Success &&
      plan.action !== 'MODAL'
    )
      throw mjBadRequest('task_status_not_success');
    channelId = origin.channel_id;
    keyIndex = keyIndexOf(origin);
    prompt = origin.prompt;
  }
  const out = await submitTask(ctx, who, {
    platform: midjourneyPlatform,
    action: plan.action,
    model: plan.model,
    body: upstreamBody(body, ctx.options),
    ip: req.ip,
    headers: req.headers,
    channelId,
    keyIndex,
    prompt,
    mode: prefix ? modeOf(prefix) : undefined,
  });
  if (!out.ok) {
    if (out.unavailable) await reportUnavailable(ctx, out.unavailable, out.message);
    const code = typeof out.code === 'number' ? out.code : MjCode.Unknown;
    return { status: out.httpStatus, body: { code, description: out.message, result: '', properties: null } };
  }
  // new-api answers "already exists" and "queued" as submitted: the caller polls the id either way.
  const u = out.upstream;
  return {
    status: 200,
    headers: quotaReceipt(ctx, out.task.quota).headers,
    body: {
      code: MjCode.Submitted,
      description: u.description ?? 'Submit success',
      result: u.upstreamTaskId,
      properties: u.properties ?? {},
    },
  };
}

/**
 * midjourney-proxy's code 3 (no account instance): the channel is reported through the relay's auto-disable hook,
 * as an authorization failure, so it is disabled when AutomaticDisableChannelEnabled is on and the channel allows it.
 */
async function reportUnavailable(
  ctx: RelayContext,
  u: NonNullable<TaskRefused['unavailable']>,
  description: string,
): Promise<void> {
  await ctx.channels
    ?.reportUpstreamError(
      u.channel,
      u.keyIndex,
      ACCOUNT_UNAVAILABLE_STATUS,
      `midjourney: ${description || 'No available account instance'}`,
    )
    .catch((err: unknown) => {
      ctx.log.warn({ err, channel: u.channel.id }, 'midjourney: reporting an unavailable channel failed');
    });
}

/** The stored task's image, fetched through the SSRF guard (only with MjForwardUrlEnabled). */
async function serveImage(
  ctx: RelayContext,
  images: Dispatcher,
  req: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<unknown> {
  if (!ctx.options.bool('MjForwardUrlEnabled'))
    return reply.code(NOT_FOUND).send({ error: 'midjourney_image_proxy_disabled' });
  const row = await mjTaskByMjId(ctx.db, req.params.id);
  if (!row?.image_url) return reply.code(NOT_FOUND).send({ error: 'midjourney_task_not_found' });
  try {
    const res = await request(row.image_url, { dispatcher: images });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return reply.code(502).send({ error: `image upstream answered ${res.statusCode}` });
    }
    const type = res.headers['content-type'];
    return reply
      .code(200)
      .header('content-type', typeof type === 'string' && type ? type : 'image/jpeg')
      .send(res.body);
  } catch (err) {
    if (err instanceof OutboundBlockedError) return reply.code(403).send({ error: err.message });
    ctx.log.warn({ err, mjId: req.params.id }, 'midjourney image fetch failed');
    return reply.code(502).send({ error: 'http_get_image_failed' });
  }
}

/**
 * The upstream's notify: it names a task; the task's state is then read from its own channel (the notify body
 * is not trusted, so a forged call can only make the gateway poll once).
 */
async function notify(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  try {
    const body = parseMjBody(req.body);
    const id = typeof body.id === 'string' ? body.id : '';
    const row = id ? await mjTaskByMjId(ctx.db, id) : undefined;
    if (!row) throw mjBadRequest('midjourney_task_not_found');
    const ch = ctx.channelCache.get(row.channel_id);
    const task = await taskById(ctx.db, 'midjourneys', row.id);
    if (ch && task && !['SUCCESS', 'FAILURE'].includes(row.status)) {
      const [state] = await midjourneyPlatform.fetchTasks(upstreamOf(ch, keyIndexOf(row)), [row.mj_id]);
      if (state) await applyTaskState(ctx, task, state);
    }
    return reply.code(200).send({ code: MjCode.Submitted, description: 'ok', result: row.mj_id, properties: null });
  } catch (err) {
    const e = answerOf(err, ctx);
    return reply.code(e.status).send(e.body);
  }
}

/** Registers the Midjourney routes in the relay's scope (raw JSON bodies). */
export async function installMidjourneyRoutes(scope: FastifyInstance, ctx: RelayContext): Promise<void> {
  // Images are fetched on callers' behalf: through the SSRF guard of the fetch settings.
  const images = guardedDispatcher(() => fetchPolicy(ctx.options));
  for (const prefix of MJ_MODE_PREFIXES) {
    const mj = `${prefix}/mj`;
    for (const kind of MJ_SUBMIT_KINDS) {
      const url = kind === 'swap' ? `${mj}/insight-face/swap` : `${mj}/submit/${kind}`;
      scope.post(
        url,
        authed(ctx, (req, who) => submit(ctx, req, who, kind, prefix)),
      );
    }
    scope.get<{ Params: { id: string } }>(
      `${mj}/task/:id/fetch`,
      authed(ctx, async (req, who) => {
        const row = await ownMjTask(ctx.db, who.auth.userId, (req.params as { id: string }).id);
        if (!row) throw mjBadRequest('task_no_found');
        return { body: mjTaskView(row, ctx.options) };
      }),
    );
    scope.post(
      `${mj}/task/list-by-condition`,
      authed(ctx, async (req, who) => {
        const ids = (parseMjBody(req.body) as { ids?: unknown }).ids ?? [];
        if (!Array.isArray(ids) || ids.length > MAX_LIST_IDS || ids.some((x) => typeof x !== 'string'))
          throw mjBadRequest('ids_must_be_a_list_of_task_ids');
        return {
          body: (await ownMjTasks(ctx.db, who.auth.userId, ids as string[])).map((r) => mjTaskView(r, ctx.options)),
        };
      }),
    );
    scope.get(
      `${mj}/task/:id/image-seed`,
      authed(ctx, async (req, who) => {
        const row = await ownMjTask(ctx.db, who.auth.userId, (req.params as { id: string }).id);
        if (!row) throw mjBadRequest('task_no_found');
        const ch = ctx.channelCache.get(row.channel_id);
        if (!ch || ch.status !== ChannelStatus.Enabled) throw mjBadRequest('the channel of this task is disabled');
        const answer = await upstreamGet(
          upstreamOf(ch, keyIndexOf(row)),
          `/mj/task/${encodeURIComponent(row.mj_id)}/image-seed`,
        ).catch(() => {
          throw new RelayError(502, 'do_request_failed');
        });
        return {
          status: answer.status,
          body: answer.json ?? {
            code: MjCode.Unknown,
            description: 'empty_response_body',
            result: '',
            properties: null,
          },
        };
      }),
    );
    scope.get<{ Params: { id: string } }>(`${mj}/image/:id`, (req, reply) => serveImage(ctx, images, req, reply));
    scope.post(`${mj}/notify`, (req, reply) => notify(ctx, req, reply));
  }
}
