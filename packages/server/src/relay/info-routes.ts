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

const gemini = geminiGenerate as unknown as WireFormat;
const geminiModels = (ids: string[]) => ({
  models: ids.map((id) => ({ name: `models/${id}`, version: '001', displayName: id, supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] })),
});

/** The token-authenticated read-only calls: model lists in the caller's protocol and OpenAI-style billing. */
export function installInfoRoutes(scope: FastifyInstance, ctx: RelayContext): void {
  const fail = (reply: Parameters<typeof replyRelayError>[0], err: unknown, format: WireFormat) =>
    replyRelayError(reply, relayFailure(err, ctx.log), format);

  const modelsOf = async (req: RelayRequest) => {
    const { auth, group } = await authenticate(req, ctx.relay.tokens);
    const models = ctx.channelCache.modelsForGroup(group).filter((m) => !auth.modelLimits || auth.modelLimits.has(m));
    const created = Math.floor(ctx.startedAt / 1000);
    return models.map((id) => ({ id, object: 'model', created, owned_by: 'tollway' }));
  };

  scope.get('/v1beta/models', async (req, reply) => {
    try {
      return geminiModels((await modelsOf(req)).map((m) => m.id));
    } catch (err) {
      return fail(reply, err, gemini);
    }
  });
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
      if (googleKey) return geminiModels(models.map((m) => m.id));
      return { object: 'list', data: models };
    } catch (err) {
      return fail(reply, err, anthropic ? anthropicMessages : googleKey ? gemini : openAIChat);
    }
  });
  scope.get<{ Params: { model: string } }>('/v1/models/:model', async (req) => {
    const found = (await modelsOf(req)).find((m) => m.id === req.params.model);
    if (!found) throw new RelayError(404, `The model '${req.params.model}' does not exist`, 'invalid_request_error', 'model_not_found');
    return found;
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
