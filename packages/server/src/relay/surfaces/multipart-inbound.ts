import type { IncomingMessage } from 'node:http';
import type { RelayRequest } from '../request.js';
import { relayErrors } from '../errors.js';
import { openAIChat } from '../ir/openai-chat.js';
import type { RelayContext } from '../services.js';
import { spoolMultipart, type MultipartSpool } from './spool.js';
import type { InboundCall } from '../types.js';

const spools = new WeakMap<IncomingMessage, MultipartSpool>();

/** Removes the spool of a request once its response is over (the relay scope calls this on 'close'). */
export function disposeSpoolOf(raw: IncomingMessage): void {
  spools.get(raw)?.dispose();
  spools.delete(raw);
}

type SurfacePart = Pick<InboundCall, 'surface' | 'units' | 'bytes' | 'stream'>;

/**
 * An inbound parser for a multipart OpenAI endpoint: the body (left unread by the scope's content parser) is
 * spooled after authentication, the model read from its field, and `build` makes the surface of the call.
 */
export function multipartInbound(build: (spool: MultipartSpool, model: string) => SurfacePart) {
  return (ctx: RelayContext) =>
    async (req: RelayRequest): Promise<InboundCall> => {
      const stream = req.body as NodeJS.ReadableStream | undefined;
      if (!stream || typeof (stream as { pipe?: unknown }).pipe !== 'function') throw relayErrors.badBody('a multipart/form-data body is required');
      const spool = await spoolMultipart(stream, req.headers['content-type'], ctx.config.bodyLimit);
      spools.set(req.raw, spool);
      const model = (spool.fields.model ?? '').trim();
      if (!model) throw relayErrors.noModel();
      const part = build(spool, model);
      return { format: openAIChat, body: { ...spool.fields }, model, includeUsage: false, maxTokens: 0, ...part };
    };
}
