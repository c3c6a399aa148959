import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The MCP transport's web Request of a node request. The body is not carried: the caller hands the parsed body to
 * the transport (the relay's routes read it already). The request's signal aborts when the client goes away.
 */
export function webRequestOf(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return new Request(`http://mcp.invalid${req.url ?? '/'}`, { method: req.method, headers, signal: gone.signal });
}

/**
 * Writes the transport's web Response to the node response as it comes: headers at once (an SSE stream's client
 * needs them before the first event), then each chunk; a client that goes away cancels the stream, which the
 * transport sees as the stream's end.
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } catch {
    // The client left (the stream was cancelled): nothing more to write.
  } finally {
    if (!res.writableEnded) res.end();
  }
}
