import type { FastifyInstance } from 'fastify';
import { authenticate } from './authenticate.js';
import { RelayError } from '../pipeline/errors.js';
import { anthropicMessages } from '../providers/anthropic/convert.js';
import { geminiGenerate } from '../providers/gemini/convert.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { ClientFormat } from '../ir/types.js';
import type { RelayRequest } from './request.js';
import { InfoService } from './info-service.js';
import { relayFailure, replyRelayError } from '../pipeline/respond.js';
import type { RelayContext } from '../pipeline/services.js';
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
} from '../surfaces/model-shapes.js';

const gemini: ClientFormat = geminiGenerate;
const formats: Record<ModelInfoProtocol, ClientFormat> = { openai: openAIChat, anthropic: anthropicMessages, gemini };

/** The token-authenticated read-only calls: model lists and lookups in the caller's protocol and OpenAI-style billing. */
export async function installInfoRoutes(scope: FastifyInstance, ctx: RelayContext): Promise<void> {
  const fail = (reply: Parameters<typeof replyRelayError>[0], err: unknown, format: ClientFormat) =>
    replyRelayError(reply, relayFailure(err, ctx.log), format);

  const info = new InfoService(ctx);
  const modelsOf = async (req: RelayRequest): Promise<ServedModel[]> =>
    info.servedModels(await authenticate(req, ctx.relay.tokens));
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
        fail(
          reply,
          new RelayError(
            404,
            `${req.method} ${req.url.split('?')[0]} is not a method of this API`,
            'invalid_request_error',
            'not_found',
          ),
          gemini,
        ),
      );
      v1beta.setErrorHandler((err, _req, reply) => fail(reply, err, gemini));
      v1beta.get('/models', async (req, reply) => {
        try {
          return geminiModelPage(
            (await modelsOf(req)).map((m) => m.id),
            req.query as Record<string, unknown>,
          );
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
      if (protocol === 'gemini')
        return geminiModelPage(
          models.map((m) => m.id),
          req.query as Record<string, unknown>,
        );
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

  const subscription = async (req: RelayRequest) => info.subscription(await authenticate(req, ctx.relay.tokens));
  const usage = async (req: RelayRequest) => info.usage(await authenticate(req, ctx.relay.tokens));
  for (const prefix of ['', '/v1']) {
    scope.get(`${prefix}/dashboard/billing/subscription`, subscription);
    scope.get(`${prefix}/dashboard/billing/usage`, usage);
  }
}
