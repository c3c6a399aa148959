import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from './authenticate.js';
import { RelayError } from './errors.js';
import { relayOpenAI, sendRelayError } from './handler.js';
import type { OpenAIEndpoint } from './providers/openai/request.js';
import type { RelayContext } from './services.js';

const ENDPOINTS: [string, OpenAIEndpoint][] = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/moderations', 'moderations'],
];

function fail(ctx: RelayContext, req: FastifyRequest, reply: FastifyReply, err: unknown): void {
  if (err instanceof RelayError) return sendRelayError(reply, err);
  const fe = err as FastifyError;
  if (fe.statusCode && fe.statusCode < 500) return sendRelayError(reply, new RelayError(fe.statusCode, fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'request body is too large' : fe.message, 'invalid_request_error'));
  req.log.error({ err }, 'relay failed');
  sendRelayError(reply, new RelayError(500, 'internal server error, contact the administrator', 'tollway_error', 'internal_error'));
}

/** The OpenAI-compatible API under /v1 (token auth, OpenAI error shape), in its own scope with a raw body. */
export async function installRelayRoutes(app: FastifyInstance, ctx: RelayContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ctx.config.bodyLimit }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err, req, reply) => fail(ctx, req, reply, err));
    for (const [url, endpoint] of ENDPOINTS) {
      scope.post(url, async (req, reply) => {
        try {
          await relayOpenAI(ctx, req, reply, endpoint);
        } catch (err) {
          fail(ctx, req, reply, err);
        }
      });
    }

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
