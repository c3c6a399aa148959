import type { ServerResponse } from 'node:http';
import { authenticate, type Identified } from '../../entry/authenticate.js';
import type { RelayRequest } from '../../entry/request.js';
import { relayFailure } from '../../pipeline/respond.js';
import type { RelayContext } from '../../pipeline/services.js';
import type { InboundCall } from '../../pipeline/types.js';
import { echoedTools, runMcpResponse } from './loop.js';
import { hasMcpTool } from './spec.js';
import { ResponsesEventStream, type LoopEvents } from './stream.js';
import { itemId } from './toolset.js';

/** The option that turns remote `mcp` tools of the Responses API into calls of registered servers (off by default). */
export const RESPONSES_MCP_OPTION = 'mcp_setting.responses_tools_enabled';

/** The bytes every body naming an `mcp` tool holds (a body without them is not read twice). */
const MCP_MARK = Buffer.from('"mcp"');

/**
 * The /v1/responses route's hook (its `local`): with the option on, a request whose tools include an `mcp` tool is
 * run by Tollway against its registered MCP servers (loop.ts) and answered whole; any other request, and every
 * request while the option is off, returns undefined and is relayed as before (an `mcp` tool passed through).
 */
export function responsesMcpTools(parse: (req: RelayRequest) => InboundCall) {
  return (
    ctx: RelayContext,
    req: RelayRequest,
    who: Identified | undefined,
    res: ServerResponse,
  ): Promise<unknown> | undefined => {
    if (!ctx.options.bool(RESPONSES_MCP_OPTION)) return undefined;
    if (!Buffer.isBuffer(req.body) || req.body.indexOf(MCP_MARK) === -1) return undefined;
    let call: InboundCall;
    try {
      call = parse(req);
    } catch {
      // The relay call answers the body's refusal in its usual words.
      return undefined;
    }
    if (!hasMcpTool(call.body.tools)) return undefined;
    return (async () => {
      const caller = who ?? (await authenticate(req, ctx.relay.tokens));
      return call.stream ? streamed(ctx, req, caller, call, res) : runMcpResponse(ctx, req, caller, call);
    })();
  };
}

/**
 * The streamed answer: the event stream opens with the first item (the tool lists), so a refusal before it (a
 * server the token may not use, a bad field) is still a plain error answer; one after it is an `error` event.
 */
async function streamed(
  ctx: RelayContext,
  req: RelayRequest,
  who: Identified,
  call: InboundCall,
  res: ServerResponse,
): Promise<void> {
  let stream: ResponsesEventStream | undefined;
  const open = (): ResponsesEventStream =>
    (stream ??= new ResponsesEventStream(
      res,
      {
        id: itemId('resp'),
        object: 'response',
        created_at: Math.floor(Date.now() / 1000),
        model: call.model,
        tools: echoedTools(call.body.tools as unknown[]),
        usage: null,
      },
      ctx.relay.settings.get().pingMs,
    ));
  const events: LoopEvents = {
    listed: (item) => open().listed(item),
    calling: (item) => open().calling(item),
    called: (item) => open().called(item),
    produced: (item) => open().produced(item),
  };
  try {
    const answer = await runMcpResponse(ctx, req, who, call, events);
    open().finish(answer);
  } catch (err) {
    const opened = stream as ResponsesEventStream | undefined;
    if (!opened) throw err;
    opened.fail(relayFailure(err, ctx.log));
  }
}
