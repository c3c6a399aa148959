import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from './authenticate.js';
import { countIRPromptTokens } from './token-count.js';
import { RelayError } from './errors.js';
import { relayCall, sendRelayError } from './handler.js';
import { bodyModelInbound, openAIInbound, parseJsonBody, type InboundCall } from './inbound.js';
import { geminiAnyInbound, installSurfaceRoutes } from './surfaces/index.js';
import { geminiGenerate } from './ir/gemini.js';
import { openAIResponses } from './ir/responses.js';
import { anthropicMessages } from './ir/anthropic.js';
import { openAIChat } from './ir/openai-chat.js';
import type { WireFormat } from './ir/types.js';
import type { OpenAIEndpoint } from './providers/openai/request.js';
import type { RelayContext } from './services.js';

const ENDPOINTS: [string, OpenAIEndpoint][] = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/moderations', 'moderations'],
];

function fail(req: FastifyRequest, reply: FastifyReply, err: unknown, format: WireFormat = openAIChat): void {
  if (err instanceof RelayError) return sendRelayError(reply, err, format);
  const fe = err as FastifyError;
  if (fe.statusCode && fe.statusCode < 500) {
    return sendRelayError(reply, new RelayError(fe.statusCode, fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'request body is too large' : fe.message, 'invalid_request_error'), format);
  }
  req.log.error({ err }, 'relay failed');
  sendRelayError(reply, new RelayError(500, 'internal server error, contact the administrator', 'tollway_error', 'internal_error'), format);
}

const notImplemented = (what: string) => new RelayError(501, `${what} is not supported by this gateway`, 'invalid_request_error', 'not_implemented');

/** Registers one relay endpoint: errors (even authentication) answer in the client's format. */
export function relayRoute(scope: FastifyInstance, ctx: RelayContext, url: string, format: WireFormat, parse: (req: FastifyRequest) => InboundCall | Promise<InboundCall>): void {
  scope.post(url, async (req, reply) => {
    try {
      await relayCall(ctx, req, reply, parse);
    } catch (err) {
      fail(req, reply, err, format);
    }
  });
}

/** The OpenAI-compatible API under /v1 (token auth, OpenAI error shape), in its own scope with a raw body. */
export async function installRelayRoutes(app: FastifyInstance, ctx: RelayContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ctx.config.bodyLimit }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err, req, reply) => fail(req, reply, err));
    for (const [url, endpoint] of ENDPOINTS) relayRoute(scope, ctx, url, openAIChat, openAIInbound(endpoint));
    relayRoute(scope, ctx, '/v1/messages', anthropicMessages, bodyModelInbound(anthropicMessages, 'max_tokens'));
    await installSurfaceRoutes(scope, ctx, relayRoute);
    // Stateful OpenAI APIs a gateway does not hold: a clear 501 instead of a 404.
    for (const prefix of ['/v1/files', '/v1/fine_tuning', '/v1/fine-tunes', '/v1/batches', '/v1/assistants', '/v1/threads', '/v1/vector_stores', '/v1/uploads']) {
      scope.all(`${prefix}`, (_req, reply) => sendRelayError(reply, notImplemented(prefix), openAIChat));
      scope.all(`${prefix}/*`, (_req, reply) => sendRelayError(reply, notImplemented(prefix), openAIChat));
    }
    const responses = openAIResponses as unknown as WireFormat;
    relayRoute(scope, ctx, '/v1/responses', responses, (req) => {
      const call = bodyModelInbound(responses, 'max_output_tokens')(req);
      // Server-side conversation state is not kept by a gateway; say so instead of answering without history.
      if (call.body.previous_response_id) throw new RelayError(400, 'previous_response_id is not supported; send the whole conversation in input', 'invalid_request_error', 'unsupported_parameter');
      return call;
    });
    const gemini = geminiGenerate as unknown as WireFormat;
    relayRoute(scope, ctx, '/v1/models/*', gemini, geminiAnyInbound);
    for (const version of ['v1beta']) {
      relayRoute(scope, ctx, `/${version}/models/*`, gemini, geminiAnyInbound);
      scope.get(`/${version}/models`, async (req, reply) => {
        try {
          const models = await modelsOf(req);
          return { models: models.map((m) => ({ name: `models/${m.id}`, version: '001', displayName: m.id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] })) };
        } catch (err) {
          return fail(req, reply, err, gemini);
        }
      });
    }
    scope.post('/v1/messages/count_tokens', async (req, reply) => {
      try {
        await authenticate(req, ctx.relay.tokens);
        const ir = anthropicMessages.requestToIR(parseJsonBody(req.body));
        return { input_tokens: countIRPromptTokens(ir) };
      } catch (err) {
        return fail(req, reply, err, anthropicMessages);
      }
    });

    const modelsOf = async (req: FastifyRequest) => {
      const { auth, group } = await authenticate(req, ctx.relay.tokens);
      const models = ctx.channelCache.modelsForGroup(group).filter((m) => !auth.modelLimits || auth.modelLimits.has(m));
      const created = Math.floor(ctx.startedAt / 1000);
      return models.map((id) => ({ id, object: 'model', created, owned_by: 'tollway' }));
    };
    // The model list answers in the caller's protocol: Anthropic's when it sends anthropic-version, Gemini's
    // when it authenticates the Gemini way, else OpenAI's.
    scope.get('/v1/models', async (req, reply) => {
      const anthropic = req.headers['anthropic-version'] !== undefined;
      const googleKey = req.headers['x-goog-api-key'] !== undefined || (req.query as { key?: string }).key !== undefined;
      try {
        const models = await modelsOf(req);
        if (anthropic) {
          const data = models.map((m) => ({ type: 'model', id: m.id, display_name: m.id, created_at: new Date(m.created * 1000).toISOString() }));
          return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
        }
        if (googleKey) return { models: models.map((m) => ({ name: `models/${m.id}`, version: '001', displayName: m.id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] })) };
        return { object: 'list', data: models };
      } catch (err) {
        return fail(req, reply, err, anthropic ? anthropicMessages : googleKey ? (geminiGenerate as unknown as WireFormat) : openAIChat);
      }
    });
    scope.get<{ Params: { model: string } }>('/v1/models/:model', async (req) => {
      const found = (await modelsOf(req)).find((m) => m.id === req.params.model);
      if (!found) throw new RelayError(404, `The model '${req.params.model}' does not exist`, 'invalid_request_error', 'model_not_found');
      return found;
    });

    const subscription = async (req: FastifyRequest) => {
      const { auth } = await authenticate(req, ctx.relay.tokens);
      const perUnit = ctx.options.num('QuotaPerUnit');
      const balance = auth.unlimited ? await ctx.relay.ledger.available('users', auth.userId) : await ctx.relay.ledger.available('tokens', auth.tokenId);
      const usd = Math.max(0, balance ?? 0) / perUnit;
      return {
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: usd,
        hard_limit_usd: usd,
        system_hard_limit_usd: usd,
        access_until: auth.expiredTime === -1 ? 0 : auth.expiredTime,
      };
    };
    const usage = async (req: FastifyRequest) => {
      const { auth } = await authenticate(req, ctx.relay.tokens);
      const row = await ctx.db.kysely.selectFrom('tokens').select('used_quota').where('id', '=', auth.tokenId).executeTakeFirst();
      // OpenAI reports usage in cents.
      return { object: 'list', total_usage: (Number(row?.used_quota ?? 0) / ctx.options.num('QuotaPerUnit')) * 100 };
    };
    for (const prefix of ['', '/v1']) {
      scope.get(`${prefix}/dashboard/billing/subscription`, subscription);
      scope.get(`${prefix}/dashboard/billing/usage`, usage);
    }
  });
}
