import { Agent } from 'undici';

/**
 * One keep-alive connection pool per upstream origin, shared by every request (undici Agent). Timeouts:
 * headers within `headersTimeoutMs`, and at most `bodyTimeoutMs` between two body chunks (STREAMING_TIMEOUT).
 */
export function createUpstreamAgent(opts: { bodyTimeoutMs: number; headersTimeoutMs?: number; connections?: number }): Agent {
  return new Agent({
    connections: opts.connections ?? 256,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    headersTimeout: opts.headersTimeoutMs ?? 300_000,
    bodyTimeout: opts.bodyTimeoutMs,
    connect: { timeout: 10_000 },
  });
}
