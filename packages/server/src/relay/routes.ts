import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from './authenticate.js';
import { countIRPromptTokens } from './token-count.js';
import { RelayError } from './errors.js';
import { relayCall, sendRelayError } from './handler.js';
import { bodyModelInbound, openAIInbound, parseJsonBody, type InboundCall } from './inbound.js';
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

/** Registers one relay endpoint: errors (even authentication) answer in the client's format. */
export function relayRoute(scope: FastifyInstance, ctx: RelayContext, url: string, format: WireFormat, parse: (req: FastifyRequest) => InboundCall): void {
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
    scope.get('/v1/models', async (req) => ({ object: 'list', data: await modelsOf(req) }));
    scope.get<{ Params: { model: string } }>('/v1/models/:model', async (req) => {
      const found = (await modelsOf(req)).find((m) => m.id === req.params.model);
      if (!found) throw new RelayError(404, `The model '${req.params.model}' does not exist`, 'invalid_request_error', 'model_not_found');
      return found;
    });

    const subscription = async (req: FastifyRequest) => {
      const { auth } = await authenticate(req, ctx.relay.tokens);
      const perUnit = ctx.options.num('QuotaPerUnit');
      const balance = auth.unlimited ? await ctx.relay.ledger.users.ensure(auth.userId) : await ctx.relay.ledger.tokens.ensure(auth.tokenId);
      const usd = Math.max(0, balance?.available ?? 0) / perUnit;
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
