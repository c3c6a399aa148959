// OpenAI-style video generation as new-api serves it: /v1/video/generations and /v1/videos.
import { quotaReceipt } from '../../billing/receipt.js';
import { isAdmin } from '@tollway/shared';
import { authorize } from '../../../modules/auth/guard.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseJsonObject } from '../../../core/routing/channel-row.js';
import { authenticate, type Identified } from '../../entry/authenticate.js';
import { RelayError, relayErrors } from '../../pipeline/errors.js';
import { identifiedCaller, keyFirst } from '../../entry/key-first.js';
import { openAIChat } from '../../providers/openai/chat.js';
import { parseJsonBody } from '../../entry/inbound.js';
import { relayErrorBody, relayFailure } from '../../pipeline/respond.js';
import type { RelayContext } from '../../pipeline/services.js';
import { submitTask, upstreamOf, type TaskSubmitOutcome } from '../service.js';
import type { TaskPlatform } from '../types.js';
import { keyIndexOfPrivateData } from '../store.js';
import { taskStream } from '../upstream-http.js';
import { openAIVideoContentUrl } from './openai.js';
import { KLING_PLATFORM, klingPlatform, OPENAI_VIDEO_PLATFORM, openAIVideoPlatform } from './platform.js';
import { anyTaskRow, ownTaskRow, type OwnTaskRow } from './store.js';
import { klingAction } from './kling.js';
import { JIMENG_IMAGE_MAX_BYTES } from './jimeng.js';
import { viduAction } from './vidu.js';
import {
  DOUBAO_VIDEO_PLATFORM,
  doubaoVideoPlatform,
  JIMENG_PLATFORM,
  jimengPlatform,
  VIDU_PLATFORM,
  viduPlatform,
} from './vendors.js';
import { spoolBudgetOf } from '../../surfaces/spool-budget.js';
import { KLING_IMAGE_MAX_BYTES, readVideoForm, uploadBase64, withUpload, type VideoUpload } from './upload.js';
import {
  openAIVideo,
  parseVideoRemix,
  parseVideoSubmit,
  VIDEO_REMIX_ACTION,
  VideoStatus,
  videoStatusOf,
  type VideoRemixBody,
  type VideoSubmitReq,
} from './wire.js';

const PLATFORMS = [KLING_PLATFORM, OPENAI_VIDEO_PLATFORM, JIMENG_PLATFORM, VIDU_PLATFORM, DOUBAO_VIDEO_PLATFORM];
/** The platforms of the native video vendors by channel type; every other channel is OpenAI-compatible. */
const NATIVE: ReadonlyMap<number, TaskPlatform> = new Map(
  [klingPlatform, jimengPlatform, viduPlatform, doubaoVideoPlatform].flatMap((p) => p.channelTypes.map((t) => [t, p])),
);
const GENERATE_ACTION = 'generate';
/** new-api's action of a submit by platform: Kling, OpenAI and Vidu tell by the images, the others `generate`. */
const ACTIONS: Record<string, (b: VideoSubmitReq) => string> = {
  [KLING_PLATFORM]: klingAction,
  [OPENAI_VIDEO_PLATFORM]: klingAction,
  [VIDU_PLATFORM]: viduAction,
};
/** An uploaded reference image sent inline: at most the vendor's own limit. */
const INLINE_IMAGE_MAX: Record<string, number> = { [JIMENG_PLATFORM]: JIMENG_IMAGE_MAX_BYTES };
const NOT_FOUND = 404;
const REDIRECT = 302;

const notFound = () => new RelayError(NOT_FOUND, 'task_not_exist', 'invalid_request_error', 'task_not_exist');

/**
 * A submit's fields: JSON, or a multipart form spooled to disk (its `input_reference` file kept there, disposed
 * when the response is over).
 */
async function submitBody(
  ctx: RelayContext,
  req: FastifyRequest,
  reply: FastifyReply,
  who: Identified,
): Promise<{ fields: unknown; upload?: VideoUpload }> {
  const raw = req.body;
  if (Buffer.isBuffer(raw)) return { fields: parseJsonBody(raw) };
  if (!raw || typeof (raw as { pipe?: unknown }).pipe !== 'function')
    throw relayErrors.badBody('a JSON object is required');
  const lease = spoolBudgetOf(ctx.config).lease(`user:${who.auth.userId}`);
  const form = await readVideoForm(raw as NodeJS.ReadableStream, req.headers['content-type'], {
    limit: ctx.config.bodyLimit,
    lease,
  });
  if (reply.raw.writableFinished || reply.raw.destroyed) form.spool.dispose();
  else reply.raw.once('close', () => form.spool.dispose());
  return { fields: form.fields, upload: form.upload };
}

/** Picks the channel first, since the platform (a native vendor's or OpenAI-compatible) follows its type. */
function platformFor(ctx: RelayContext, who: Identified, model: string) {
  const ch = ctx.channelCache.select(who.group, model, new Set(), 0);
  if (!ch) return { platform: openAIVideoPlatform, channelId: undefined };
  return { platform: NATIVE.get(ch.type) ?? openAIVideoPlatform, channelId: ch.id };
}

async function submit(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, who: Identified): Promise<unknown> {
  const { fields, upload } = await submitBody(ctx, req, reply, who);
  const body: VideoSubmitReq = parseVideoSubmit(fields);
  const { platform, channelId } = platformFor(ctx, who, body.model);
  // Native vendors take the reference image inline; an OpenAI-compatible upstream gets the caller's form streamed.
  const native = platform !== openAIVideoPlatform;
  if (upload && native && !body.image)
    body.image = await uploadBase64(upload, INLINE_IMAGE_MAX[platform.name] ?? KLING_IMAGE_MAX_BYTES);
  const properties = {
    prompt: body.prompt,
    seconds: body.seconds ?? (body.duration ? String(body.duration) : ''),
    size: body.size ?? '',
  };
  const out = await submitTask(ctx, who, {
    platform,
    action: ACTIONS[platform.name]?.(body) ?? GENERATE_ACTION,
    model: body.model,
    body: withUpload(body as unknown as Record<string, unknown>, native ? undefined : upload),
    ip: req.ip,
    headers: req.headers,
    channelId,
    properties,
  });
  if (out.ok) reply.headers(quotaReceipt(ctx, out.task.quota).headers);
  return answerOf(out, body.model, properties);
}

/** A submit's answer: the new task as an OpenAI video object, or the refusal in OpenAI's error shape. */
function answerOf(out: TaskSubmitOutcome, model: string, props: Record<string, string>) {
  if (!out.ok)
    throw new RelayError(
      out.httpStatus,
      out.message,
      out.httpStatus < 500 ? 'invalid_request_error' : 'upstream_error',
      String(out.code),
    );
  return openAIVideo({
    task_id: out.task.taskId,
    model,
    status: out.task.status,
    progress: out.task.progress,
    fail_reason: '',
    submit_time: out.task.submitTime,
    finish_time: 0,
    url: '',
    seconds: str(props.seconds),
    size: str(props.size),
    remixed_from: str(props.remixed_from) || undefined,
  });
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** OpenAI's remix: a new task on the channel of a finished video, billed like a submit of its model. */
async function remix(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, who: Identified): Promise<unknown> {
  const origin = await own(ctx, req, who);
  const { prompt } = parseVideoRemix(parseJsonBody(req.body));
  if (origin.platform !== OPENAI_VIDEO_PLATFORM)
    throw new RelayError(
      400,
      'only a video made on an OpenAI-compatible channel can be remixed',
      'invalid_request_error',
      'unsupported_operation',
    );
  if (videoStatusOf(origin.status) !== VideoStatus.Completed)
    throw new RelayError(400, 'the video is not ready', 'invalid_request_error', 'video_not_ready');
  const props = parseJsonObject<Record<string, unknown>>(origin.properties, {});
  const properties = { prompt, seconds: str(props.seconds), size: str(props.size), remixed_from: origin.task_id };
  const out = await submitTask(ctx, who, {
    platform: openAIVideoPlatform,
    action: VIDEO_REMIX_ACTION,
    model: origin.model_name,
    body: { prompt, remix_of: origin.upstream_task_id } satisfies VideoRemixBody,
    ip: req.ip,
    headers: req.headers,
    channelId: origin.channel_id,
    keyIndex: keyIndexOfPrivateData(origin.private_data),
    properties,
  });
  if (out.ok) reply.headers(quotaReceipt(ctx, out.task.quota).headers);
  return answerOf(out, origin.model_name, properties);
}

const videoOf = (row: OwnTaskRow) => {
  const props = parseJsonObject<Record<string, unknown>>(row.properties, {});
  return openAIVideo({
    task_id: row.task_id,
    model: row.model_name,
    status: row.status,
    progress: row.progress,
    fail_reason: row.fail_reason,
    submit_time: row.submit_time,
    finish_time: row.finish_time,
    url: row.result_url,
    seconds: str(props.seconds),
    size: str(props.size),
    remixed_from: str(props.remixed_from) || undefined,
  });
};

/** new-api's TaskDto of a video task (the `/v1/video/generations/{id}` answer's data). */
const taskDtoOf = (row: OwnTaskRow) => ({
  task_id: row.task_id,
  platform: row.platform,
  action: row.action,
  status: row.status,
  fail_reason: row.fail_reason,
  result_url: row.result_url || undefined,
  submit_time: row.submit_time,
  start_time: row.start_time,
  finish_time: row.finish_time,
  progress: row.progress,
  data: parseJsonObject<Record<string, unknown>>(row.data, {}),
});

async function own(ctx: RelayContext, req: FastifyRequest, who: Identified): Promise<OwnTaskRow> {
  const row = await ownTaskRow(ctx.db, who.auth.userId, PLATFORMS, (req.params as { id: string }).id);
  if (!row) throw notFound();
  return row;
}

/** The finished video: a native vendor's result URL as a redirect; an OpenAI-compatible upstream's bytes, streamed. */
async function content(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, row: OwnTaskRow): Promise<unknown> {
  if (videoStatusOf(row.status) !== VideoStatus.Completed)
    throw new RelayError(400, 'the video is not ready', 'invalid_request_error', 'video_not_ready');
  if (row.result_url) return reply.code(REDIRECT).header('location', row.result_url).send();
  const ch = ctx.channelCache.get(row.channel_id);
  if (!ch)
    throw new RelayError(
      NOT_FOUND,
      'the channel of this task is no longer available',
      'invalid_request_error',
      'channel_not_found',
    );
  const up = upstreamOf(ch, keyIndexOfPrivateData(row.private_data));
  const res = await taskStream(openAIVideoContentUrl(up.baseUrl, row.upstream_task_id), {
    authorization: `Bearer ${up.key}`,
  }).catch((err: Error) => {
    throw new RelayError(502, `the upstream could not be reached: ${err.message}`, 'upstream_error', 'upstream_error');
  });
  if (res.status !== 200) {
    res.body.destroy();
    throw new RelayError(502, `the upstream answered ${res.status}`, 'upstream_error', 'upstream_error');
  }
  // Streamed through: a video is not held in memory.
  if (res.contentLength) reply.header('content-length', res.contentLength);
  return reply
    .code(200)
    .type(res.contentType ?? 'video/mp4')
    .send(res.body);
}

type Handler = (req: FastifyRequest, reply: FastifyReply, who: Identified) => Promise<unknown>;

/** Whether the caller sent an API key (Authorization or x-api-key); else the console's session is asked. */
const hasApiKey = (req: FastifyRequest): boolean => !!req.headers.authorization || !!req.headers['x-api-key'];

/** Runs a route; every refusal in OpenAI's error shape. */
const guarded =
  (ctx: RelayContext, fn: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
  async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    try {
      const out = await fn(req, reply);
      return out === reply || reply.sent ? reply : reply.code(200).send(out);
    } catch (err) {
      const e = relayFailure(err, ctx.log);
      // A body refused before its end (too large, malformed) is not read on: the connection is not reused.
      if (!req.raw.complete) reply.header('connection', 'close');
      if (e.headers) reply.headers(e.headers);
      return reply.code(e.status).type('application/json').send(relayErrorBody(e, openAIChat));
    }
  };

/** Runs a handler for a caller authenticated by an API key (already, when the route checks it first). */
const authed = (ctx: RelayContext, fn: Handler) =>
  guarded(ctx, async (req, reply) =>
    fn(req, reply, identifiedCaller(req) ?? (await authenticate(req, ctx.relay.tokens))),
  );

/** The key checked from the headers before a submit's body is read; refusals in OpenAI's error shape. */
const keyChecked = (ctx: RelayContext) =>
  keyFirst(
    (req) => authenticate(req, ctx.relay.tokens),
    (reply, err) => {
      const e = relayFailure(err, ctx.log);
      return reply.code(e.status).type('application/json').send(relayErrorBody(e, openAIChat));
    },
  );

/** Registers the video routes on the relay's scope (raw bodies, token auth). */
export function installVideoRoutes(scope: FastifyInstance, ctx: RelayContext): void {
  // Multipart submits are streamed to a spool after authentication, not buffered by the scope's parser.
  const create = authed(ctx, (req, reply, who) => submit(ctx, req, reply, who));
  void scope.register(async (forms) => {
    forms.addContentTypeParser('multipart/form-data', (_req, payload, done) => done(null, payload));
    forms.post('/v1/video/generations', { onRequest: keyChecked(ctx) }, create);
    forms.post('/v1/videos', { onRequest: keyChecked(ctx) }, create);
  });
  scope.post(
    '/v1/videos/:id/remix',
    { onRequest: keyChecked(ctx) },
    authed(ctx, (req, reply, who) => remix(ctx, req, reply, who)),
  );
  scope.get(
    '/v1/video/generations/:id',
    authed(ctx, async (req, _reply, who) => ({
      code: 'success',
      message: '',
      data: taskDtoOf(await own(ctx, req, who)),
    })),
  );
  scope.get(
    '/v1/videos/:id',
    authed(ctx, async (req, _reply, who) => videoOf(await own(ctx, req, who))),
  );
  const byToken = authed(ctx, async (req, reply, who) => content(ctx, req, reply, await own(ctx, req, who)));
  // The console plays a video with its session (and the New-Api-User header): a user their own, an administrator any.
  const bySession = guarded(ctx, async (req, reply) => {
    const user = (await authorize(req, ctx, 'user'))!;
    const id = (req.params as { id: string }).id;
    const row = isAdmin(user.role)
      ? await anyTaskRow(ctx.db, PLATFORMS, id)
      : await ownTaskRow(ctx.db, user.id, PLATFORMS, id);
    if (!row) throw notFound();
    return content(ctx, req, reply, row);
  });
  scope.get('/v1/videos/:id/content', (req, reply) => (hasApiKey(req) ? byToken(req, reply) : bySession(req, reply)));
}
