import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type Identified } from './authenticate.js';
import { identifiedCaller, keyFirst } from './key-first.js';
import { countIRPromptTokens } from '../pipeline/token-count.js';
import { RelayError, relayErrors } from '../pipeline/errors.js';
import { relayCall } from '../pipeline/handler.js';
import { observeRelayCall, observerOf, observing } from '../../observability/relay-observer.js';
import { bodyModelInbound, openAIInbound, parseJsonBody } from './inbound.js';
import { installInfoRoutes } from './info-routes.js';
import { installPlayground } from './playground.js';
import { installMidjourneyRoutes } from '../tasks/midjourney/routes.js';
import { installMcpRoutes } from '../mcp/routes.js';
import { responsesMcpTools } from '../mcp/responses/entry.js';
import {
  geminiAnyInbound,
  geminiLocalCall,
  installSurfaceRoutes,
  openAIEmbeddingsInbound,
  surfaceJsonRoutes,
} from '../surfaces/index.js';
import { geminiGenerate } from '../providers/gemini/convert.js';
import { openAIResponses } from '../providers/openai/responses.js';
import { anthropicMessages } from '../providers/anthropic/convert.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { ClientFormat } from '../ir/types.js';
import type { RelayRequest } from './request.js';
import { relayFailure, replyRelayError, writeRelayError } from '../pipeline/respond.js';
import type { RelayContext } from '../pipeline/services.js';
import { bodyModel, checkAnthropic, checkResponses } from './validate.js';
import type { InboundCall } from '../pipeline/types.js';
import { installSunoRoutes } from '../tasks/suno/routes.js';
import { installVideoRoutes } from '../tasks/video/routes.js';

/** A relay endpoint with a JSON body; `url` ending in `/*` matches every path below it. */
export interface JsonRelayRoute {
  url: string;
  format: ClientFormat;
  parse: (req: RelayRequest) => InboundCall | Promise<InboundCall>;
  /**
   * Calls the gateway answers itself (no upstream, not billed; or, for remote MCP tools, its own relay calls, each
   * billed): the JSON answer (or, once it wrote its own answer on `res`, anything), or undefined for a relay call.
   */
  local?: (
    ctx: RelayContext,
    req: RelayRequest,
    who: Identified | undefined,
    res: Parameters<typeof writeRelayError>[0],
  ) => Promise<unknown> | undefined;
}

/** OpenAI Responses: the body checked; previous_response_id refused. */
function responsesInbound(req: RelayRequest): InboundCall {
  const call = bodyModelInbound(openAIResponses, checkResponses)(req);
  // Server-side conversation state is not kept by a gateway; say so instead of answering without history.
  if (call.body.previous_response_id)
    throw new RelayError(
      400,
      'previous_response_id is not supported; send the whole conversation in input',
      'invalid_request_error',
      'unsupported_parameter',
    );
  return call;
}

/** Every JSON relay endpoint: registered on Fastify and served by the hot-path entry from this one table. */
export const jsonRelayRoutes: JsonRelayRoute[] = [
  { url: '/v1/chat/completions', format: openAIChat, parse: openAIInbound('chat') },
  { url: '/v1/completions', format: openAIChat, parse: openAIInbound('completions') },
  { url: '/v1/embeddings', format: openAIChat, parse: openAIEmbeddingsInbound },
  { url: '/v1/moderations', format: openAIChat, parse: openAIInbound('moderations') },
  { url: '/v1/messages', format: anthropicMessages, parse: bodyModelInbound(anthropicMessages, checkAnthropic) },
  // Remote `mcp` tools are run against registered MCP servers when mcp_setting.responses_tools_enabled is on.
  {
    url: '/v1/responses',
    format: openAIResponses,
    parse: responsesInbound,
    local: responsesMcpTools(responsesInbound),
  },
  { url: '/v1beta/models/*', format: geminiGenerate, parse: geminiAnyInbound, local: geminiLocalCall },
  { url: '/v1/models/*', format: geminiGenerate, parse: geminiAnyInbound, local: geminiLocalCall },
  ...surfaceJsonRoutes,
];

/** Runs one relay call on a raw response (`who`: the caller, when already authenticated); any failure is answered in the caller's format. */
export function serveRelayCall(
  ctx: RelayContext,
  route: JsonRelayRoute,
  req: RelayRequest,
  res: Parameters<typeof writeRelayError>[0],
  who?: Identified,
): Promise<void> {
  // The hot path observes a call from its key check; other entries from here.
  const obs = observing.on ? (observerOf(res) ?? observeRelayCall(route.url, req.headers, res)) : undefined;
  const local = route.local?.(ctx, req, who, res);
  const done = local
    ? local
        .then((answer) => {
          if (!res.headersSent) writeJson(res, answer);
        })
        .catch((err) => writeRelayError(res, relayFailure(err, ctx.log), route.format))
    : relayCall(ctx, req, res, route.parse, who && (() => who)).catch((err) =>
        writeRelayError(res, relayFailure(err, ctx.log), route.format),
      );
  return obs ? done.finally(() => obs.end()) : done;
}

/** An onRequest hook that checks the API key from the headers before the body is read; refusals in the caller's format. */
export const authenticateFirst = (ctx: RelayContext, format: ClientFormat) =>
  keyFirst(
    (req) => authenticate(req, ctx.relay.tokens),
    (reply, err) => replyRelayError(reply, relayFailure(err, ctx.log), format),
  );

/** A whole JSON answer on a raw response. */
function writeJson(res: Parameters<typeof writeRelayError>[0], answer: unknown): void {
  const body = JSON.stringify(answer);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const notImplemented = (what: string) =>
  new RelayError(501, `${what} is not supported by this gateway`, 'invalid_request_error', 'not_implemented');

/** The OpenAI-compatible API under /v1 (token auth, errors in the caller's shape), in its own scope with a raw body. */
export async function installRelayRoutes(app: FastifyInstance, ctx: RelayContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ctx.config.bodyLimit }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler((err, req, reply) =>
      replyRelayError(reply, relayFailure(err, ctx.log), req.url.startsWith('/v1beta') ? geminiGenerate : openAIChat),
    );
    const postRoute = (s: FastifyInstance, route: JsonRelayRoute) =>
      s.post(route.url, { onRequest: authenticateFirst(ctx, route.format) }, (req, reply) => {
        reply.hijack();
        return serveRelayCall(ctx, route, req, reply.raw, identifiedCaller(req));
      });
    for (const r of jsonRelayRoutes) postRoute(scope, r);
    await installSurfaceRoutes(scope, ctx, (s, _ctx, url, format, parse) => postRoute(s, { url, format, parse }));
    await installMidjourneyRoutes(scope, ctx);
    await installMcpRoutes(scope, ctx);
    // Stateful OpenAI APIs a gateway does not hold: a clear 501 instead of a 404.
    // Answered before any body is read.
    for (const prefix of [
      '/v1/files',
      '/v1/fine_tuning',
      '/v1/fine-tunes',
      '/v1/batches',
      '/v1/assistants',
      '/v1/threads',
      '/v1/vector_stores',
      '/v1/uploads',
    ]) {
      const refuse = async (req: FastifyRequest, reply: FastifyReply) => {
        if (!req.raw.complete) reply.header('connection', 'close');
        return replyRelayError(reply, notImplemented(prefix), openAIChat);
      };
      scope.all(`${prefix}`, { onRequest: refuse }, () => undefined);
      scope.all(`${prefix}/*`, { onRequest: refuse }, () => undefined);
    }
    scope.post(
      '/v1/messages/count_tokens',
      { onRequest: authenticateFirst(ctx, anthropicMessages) },
      async (req, reply) => {
        try {
          const { auth } = identifiedCaller(req) ?? (await authenticate(req, ctx.relay.tokens));
          const body = parseJsonBody(req.body);
          const model = bodyModel(body);
          if (!model) throw relayErrors.noModel();
          // Counting is free, but a token kept to some models counts for those only (as Gemini's countTokens).
          if (auth.modelLimits && !auth.modelLimits.has(model)) throw relayErrors.modelNotAllowed(model);
          checkAnthropic(body);
          const ir = anthropicMessages.requestToIR(body);
          return { input_tokens: countIRPromptTokens(ir) };
        } catch (err) {
          return replyRelayError(reply, relayFailure(err, ctx.log), anthropicMessages);
        }
      },
    );
    installSunoRoutes(scope, ctx);
    installVideoRoutes(scope, ctx);
    await installInfoRoutes(scope, ctx);
    installPlayground(scope, ctx);
  });
}
