import type { FastifyInstance } from 'fastify';
import { authenticate } from './authenticate.js';
import { RelayError } from './errors.js';
import { anthropicMessages } from './ir/anthropic.js';
import { geminiGenerate } from './ir/gemini.js';
import { openAIChat } from './ir/openai-chat.js';
import type { WireFormat } from './ir/types.js';
import type { RelayRequest } from './request.js';
import { relayFailure, replyRelayError } from './respond.js';
import type { RelayContext } from './services.js';
import {
  anthropicModel,
  anthropicModelList,
  geminiModel,
  geminiModelPage,
  modelInfoProtocol,
  modelNotFound,
  openAIModel,
  type ModelInfoProtocol,
  type ServedModel,
} from './surfaces/model-shapes.js';

const gemini = geminiGenerate as unknown as WireFormat;
const formats: Record<ModelInfoProtocol, WireFormat> = { openai: openAIChat, anthropic: anthropicMessages, gemini };

/** The token-authenticated read-only calls: model lists and lookups in the caller's protocol and OpenAI-style billing. */
export async function installInfoRoutes(scope: FastifyInstance, ctx: RelayContext): Promise<void> {
  const fail = (reply: Parameters<typeof replyRelayError>[0], err: unknown, format: WireFormat) =>
    replyRelayError(reply, relayFailure(err, ctx.log), format);

  const modelsOf = async (req: RelayRequest): Promise<ServedModel[]> => {
    const { auth, group } = await authenticate(req, ctx.relay.tokens);
    const models = ctx.channelCache.modelsForGroup(group).filter((m) => !auth.modelLimits || auth.modelLimits.has(m));
    const created = Math.floor(ctx.startedAt / 1000);
    return models.map((id) => ({ id, created }));
  };
  /** One model served to the token, or a 404 in the caller's protocol. */
  const modelOf = async (req: RelayRequest, id: string, protocol: ModelInfoProtocol): Promise<ServedModel> => {
    const found = (await modelsOf(req)).find((m) => m.id === id);
    if (!found) throw modelNotFound(id, protocol);
    return found;
  };

  // Gemini's API in its own scope: every failure under /v1beta, unknown paths and methods included, in Gemini's shape.
  await scope.register(
    async (v1beta) => {
      v1beta.setNotFoundHandler((req, reply) =>
        fail(reply, new RelayError(404, `${req.method} ${req.url.split('?')[0]} is not a method of this API`, 'invalid_request_error', 'not_found'), gemini),
      );
      v1beta.setErrorHandler((err, _req, reply) => fail(reply, err, gemini));
      v1beta.get('/models', async (req, reply) => {
        try {
          return geminiModelPage((await modelsOf(req)).map((m) => m.id), req.query as Record<string, unknown>);
        } catch (err) {
          return fail(reply, err, gemini);
        }
      });
      v1beta.get<{ Params: { model: string } }>('/models/:model', async (req, reply) => {
        try {
          // A method name after the model (models/x:generateContent) is called with POST.
          const method = /:([A-Za-z]+)$/.exec(req.params.model)?.[1];
          if (method) {
            await authenticate(req, ctx.relay.tokens);
            throw new RelayError(404, `${method} is called with POST, not GET`, 'invalid_request_error', 'not_found');
          }
          return geminiModel((await modelOf(req, req.params.model, 'gemini')).id);
        } catch (err) {
          return fail(reply, err, gemini);
        }
      });
    },
    { prefix: '/v1beta' },
  );

  scope.get('/v1/models', async (req, reply) => {
    const protocol = modelInfoProtocol(req);
    try {
      const models = await modelsOf(req);
      if (protocol === 'anthropic') return anthropicModelList(models);
      if (protocol === 'gemini') return geminiModelPage(models.map((m) => m.id), req.query as Record<string, unknown>);
      return { object: 'list', data: models.map(openAIModel) };
    } catch (err) {
      return fail(reply, err, formats[protocol]);
    }
  });
  scope.get<{ Params: { model: string } }>('/v1/models/:model', async (req, reply) => {
    const protocol = modelInfoProtocol(req);
    try {
      const found = await modelOf(req, req.params.model, protocol);
      if (protocol === 'anthropic') return anthropicModel(found);
      if (protocol === 'gemini') return geminiModel(found.id);
      return openAIModel(found);
    } catch (err) {
      return fail(reply, err, formats[protocol]);
    }
  });

  const subscription = async (req: RelayRequest) => {
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
  const usage = async (req: RelayRequest) => {
    const { auth } = await authenticate(req, ctx.relay.tokens);
    const row = await ctx.db.kysely.selectFrom('tokens').select('used_quota').where('id', '=', auth.tokenId).executeTakeFirst();
    // OpenAI reports usage in cents.
    return { object: 'list', total_usage: (Number(row?.used_quota ?? 0) / ctx.options.num('QuotaPerUnit')) * 100 };
  };
  for (const prefix of ['', '/v1']) {
    scope.get(`${prefix}/dashboard/billing/subscription`, subscription);
    scope.get(`${prefix}/dashboard/billing/usage`, usage);
  }
}
