import type { IncomingMessage } from 'node:http';
import { authenticate } from '../entry/authenticate.js';
import type { RelayRequest } from '../entry/request.js';
import { relayErrors } from '../pipeline/errors.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { RelayContext } from '../pipeline/services.js';
import { spoolMultipart, type MultipartSpool } from './spool.js';
import { spoolBudgetOf } from './spool-budget.js';
import type { InboundCall } from '../pipeline/types.js';

const spools = new WeakMap<IncomingMessage, MultipartSpool>();
/** Requests whose response is over: a spool finished after that is removed at once. */
const over = new WeakSet<IncomingMessage>();

/** Removes the spool of a request once its response is over (the relay scope calls this on 'close'). */
export function disposeSpoolOf(raw: IncomingMessage): void {
  over.add(raw);
  spools.get(raw)?.dispose();
  spools.delete(raw);
}

/** What a multipart surface decides of its call (`maxTokens`: the output it is held for, 0 when absent). */
type SurfacePart = Pick<InboundCall, 'surface' | 'units' | 'bytes' | 'stream'> &
  Partial<Pick<InboundCall, 'maxTokens'>>;

/**
 * An inbound parser for a multipart OpenAI endpoint: the body (left unread by the scope's content parser) is
 * spooled after authentication, within the caller's (user's) share of the spool budget, the model read from
 * its field, and `build` makes the surface of the call.
 */
export function multipartInbound(build: (spool: MultipartSpool, model: string) => SurfacePart) {
  return (ctx: RelayContext) =>
    async (req: RelayRequest): Promise<InboundCall> => {
      const stream = req.body as NodeJS.ReadableStream | undefined;
      if (!stream || typeof (stream as { pipe?: unknown }).pipe !== 'function')
        throw relayErrors.badBody('a multipart/form-data body is required');
      // The key was checked before the body (an in-memory lookup now): the spool is counted against its user.
      const { auth } = await authenticate(req, ctx.relay.tokens);
      const lease = spoolBudgetOf(ctx.config).lease(`user:${auth.userId}`);
      const spool = await spoolMultipart(stream, req.headers['content-type'], { limit: ctx.config.bodyLimit, lease });
      if (over.has(req.raw)) {
        // The client left while the last bytes were written: nobody will answer it, and nothing would remove the file.
        spool.dispose();
        throw relayErrors.clientClosed();
      }
      spools.set(req.raw, spool);
      const model = (spool.fields.model ?? '').trim();
      if (!model) throw relayErrors.noModel();
      const part = build(spool, model);
      return { format: openAIChat, body: { ...spool.fields }, model, includeUsage: false, maxTokens: 0, ...part };
    };
}
