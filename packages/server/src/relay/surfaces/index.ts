import type { FastifyInstance } from 'fastify';
import { RelayError } from '../pipeline/errors.js';
import type { RelayRequest } from '../entry/request.js';
import { replyRelayError } from '../pipeline/respond.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { ClientFormat } from '../ir/types.js';
import type { RelayContext } from '../pipeline/services.js';
import { audioTextInbound, speechInbound } from './audio.js';
import { imagesEditInbound, imagesGenerationInbound } from './images.js';
import { disposeSpoolOf } from './multipart-inbound.js';
import { installRealtime } from './realtime.js';
import { rerankInbound } from './rerank.js';
import type { InboundCall } from '../pipeline/types.js';

export { geminiAnyInbound } from './gemini-embed.js';
export { geminiLocalCall } from './gemini-count.js';
export { openAIEmbeddingsInbound } from './openai-embed.js';

type RelayRoute = (
  scope: FastifyInstance,
  ctx: RelayContext,
  url: string,
  format: ClientFormat,
  parse: (req: RelayRequest) => InboundCall | Promise<InboundCall>,
) => void;

/** The surfaces with JSON bodies: served like the chat endpoints (and on the hot path). */
export const surfaceJsonRoutes: { url: string; format: ClientFormat; parse: (req: RelayRequest) => InboundCall }[] = [
  { url: '/v1/images/generations', format: openAIChat, parse: imagesGenerationInbound },
  { url: '/v1/audio/speech', format: openAIChat, parse: speechInbound },
  { url: '/v1/rerank', format: openAIChat, parse: rerankInbound },
];

/**
 * The multipart OpenAI media endpoints and the realtime WebSocket relay (the JSON surfaces are in
 * `surfaceJsonRoutes`). Multipart endpoints live in a child scope whose content parser leaves the body unread,
 * so it is streamed to a spool after authentication instead of being buffered.
 */
export async function installSurfaceRoutes(
  scope: FastifyInstance,
  ctx: RelayContext,
  relayRoute: RelayRoute,
): Promise<void> {
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
  scope.get('/v1/realtime', (_req, reply) =>
    replyRelayError(
      reply,
      new RelayError(
        400,
        'the realtime API is a WebSocket: connect with an upgrade request (ws:// or wss://)',
        'invalid_request_error',
      ),
      openAIChat,
    ),
  );
  const closeRealtime = installRealtime(scope.server, ctx);
  scope.addHook('preClose', async () => closeRealtime());
}
