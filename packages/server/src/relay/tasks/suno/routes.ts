// The Suno API as new-api serves it: /suno/submit/{music,lyrics}, /suno/fetch, /suno/fetch/{id}.
import { quotaReceipt } from '../../billing/receipt.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type Identified } from '../../entry/authenticate.js';
import { identifiedCaller, keyFirst } from '../../entry/key-first.js';
import { relayFailure } from '../../pipeline/respond.js';
import type { RelayContext } from '../../pipeline/services.js';
import { submitTask } from '../service.js';
import { keyIndexOfPrivateData } from '../store.js';
import { ownTaskRow, ownTaskRows } from '../video/store.js';
import { sunoPlatform } from './platform.js';
import {
  parseSunoFetchIds,
  parseSunoSubmit,
  SUNO_MODEL_OF_ACTION,
  SUNO_PLATFORM,
  sunoActionOf,
  sunoAnswer,
  SunoError,
  sunoErrorBody,
  sunoTaskDto,
} from './wire.js';

const PLATFORMS = [SUNO_PLATFORM];

/** Any refusal as a SunoError: its own, or a relay refusal (auth, quota, model) with its status and code. */
function answerOf(err: unknown, ctx: RelayContext): SunoError {
  if (err instanceof SunoError) return err;
  const r = relayFailure(err, ctx.log);
  return new SunoError(r.status, r.code ?? r.type, r.message);
}

function jsonBody(raw: unknown): unknown {
  if (!Buffer.isBuffer(raw) || raw.length === 0) throw new SunoError(400, 'invalid_request', 'a JSON body is required');
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new SunoError(400, 'invalid_request', 'the body is not valid JSON');
  }
}

type Handler = (
  req: FastifyRequest,
  who: Identified,
) => Promise<{ status?: number; body: unknown; headers?: Record<string, string> }>;

/** A refusal in Suno's shape. */
const refuse = (ctx: RelayContext) => (reply: FastifyReply, err: unknown) => {
  const e = answerOf(err, ctx);
  return reply.code(e.status).send(sunoErrorBody(e));
};

/** A route for an authenticated caller: the key is checked from the headers before the body is read. */
const authed = (ctx: RelayContext, fn: Handler) => ({
  onRequest: keyFirst((req) => authenticate(req, ctx.relay.tokens), refuse(ctx)),
  handler: async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    try {
      const out = await fn(req, identifiedCaller(req) ?? (await authenticate(req, ctx.relay.tokens)));
      return reply
        .code(out.status ?? 200)
        .headers(out.headers ?? {})
        .send(out.body);
    } catch (err) {
      return refuse(ctx)(reply, err);
    }
  },
});

/** Registers the Suno routes on the relay's scope (raw bodies, token auth). */
export function installSunoRoutes(scope: FastifyInstance, ctx: RelayContext): void {
  scope.post(
    '/suno/submit/:action',
    authed(ctx, async (req, who) => {
      const action = sunoActionOf((req.params as { action: string }).action);
      if (!action) throw new SunoError(400, 'invalid_request', 'invalid_action');
      const body = parseSunoSubmit(action, jsonBody(req.body));
      // A continuation names the caller's earlier task by its public id: it goes upstream by the upstream's id,
      // to the channel that made it.
      let channelId: number | undefined;
      let keyIndex: number | undefined;
      if (body.task_id) {
        const origin = await ownTaskRow(ctx.db, who.auth.userId, PLATFORMS, body.task_id);
        if (!origin?.upstream_task_id) throw new SunoError(400, 'task_not_exist', 'task_not_exist');
        body.task_id = origin.upstream_task_id;
        channelId = origin.channel_id;
        keyIndex = keyIndexOfPrivateData(origin.private_data);
      }
      const out = await submitTask(ctx, who, {
        platform: sunoPlatform,
        action,
        model: SUNO_MODEL_OF_ACTION[action],
        body: body as unknown as Record<string, unknown>,
        ip: req.ip,
        headers: req.headers,
        channelId,
        keyIndex,
        properties: { prompt: body.prompt ?? body.gpt_description_prompt ?? '', mv: body.mv ?? '' },
      });
      if (!out.ok)
        return { status: out.httpStatus, body: sunoErrorBody({ code: String(out.code), message: out.message }) };
      return { body: sunoAnswer(out.task.taskId), headers: quotaReceipt(ctx, out.task.quota).headers };
    }),
  );
  scope.post(
    '/suno/fetch',
    authed(ctx, async (req, who) => {
      const ids = parseSunoFetchIds(jsonBody(req.body));
      const rows = await ownTaskRows(ctx.db, who.auth.userId, PLATFORMS, ids);
      return { body: sunoAnswer(rows.map(sunoTaskDto)) };
    }),
  );
  scope.get(
    '/suno/fetch/:id',
    authed(ctx, async (req, who) => {
      const row = await ownTaskRow(ctx.db, who.auth.userId, PLATFORMS, (req.params as { id: string }).id);
      if (!row) throw new SunoError(400, 'task_not_exist', 'task_not_exist');
      return { body: sunoAnswer(sunoTaskDto(row)) };
    }),
  );
}
