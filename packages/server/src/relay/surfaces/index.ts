import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RelayError } from '../errors.js';
import { sendRelayError } from '../handler.js';
import type { InboundCall } from '../inbound.js';
import { openAIChat } from '../ir/openai-chat.js';
import type { WireFormat } from '../ir/types.js';
import type { RelayContext } from '../services.js';
import { audioTextInbound, speechInbound } from './audio.js';
import { imagesEditInbound, imagesGenerationInbound } from './images.js';
import { disposeSpoolOf } from './multipart-inbound.js';
import { installRealtime } from './realtime.js';
import { rerankInbound } from './rerank.js';

export { geminiAnyInbound } from './gemini-embed.js';

type RelayRoute = (scope: FastifyInstance, ctx: RelayContext, url: string, format: WireFormat, parse: (req: FastifyRequest) => InboundCall | Promise<InboundCall>) => void;

/**
 * The OpenAI media and retrieval surfaces on the generic relay pipeline (images, audio, rerank) and the
 * realtime WebSocket relay. Multipart endpoints live in a child scope whose content parser leaves the body
 * unread, so it is streamed to a spool after authentication instead of being buffered.
 */
export async function installSurfaceRoutes(scope: FastifyInstance, ctx: RelayContext, relayRoute: RelayRoute): Promise<void> {
  relayRoute(scope, ctx, '/v1/images/generations', openAIChat, imagesGenerationInbound);
  relayRoute(scope, ctx, '/v1/audio/speech', openAIChat, speechInbound);
  relayRoute(scope, ctx, '/v1/rerank', openAIChat, rerankInbound);
  await scope.register(async (media) => {
    media.addContentTypeParser('multipart/form-data', (_req, payload, done) => done(null, payload));
    media.addHook('onRequest', (req, reply, done) => {
      reply.raw.once('close', () => disposeSpoolOf(req.raw));
      done();
    });
    relayRoute(media, ctx, '/v1/images/edits', openAIChat, imagesEditInbound(ctx));
    relayRoute(media, ctx, '/v1/audio/transcriptions', openAIChat, audioTextInbound('/v1/audio/transcriptions')(ctx));
    relayRoute(media, ctx, '/v1/audio/translations', openAIChat, audioTextInbound('/v1/audio/translations')(ctx));
  });
  scope.get('/v1/realtime', (_req, reply) => sendRelayError(reply, new RelayError(400, 'the realtime API is a WebSocket: connect with an upgrade request (ws:// or wss://)', 'invalid_request_error'), openAIChat));
  const closeRealtime = installRealtime(scope.server, ctx);
  scope.addHook('preClose', async () => closeRealtime());
}
