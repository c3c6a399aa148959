import http from 'node:http';
import { listenLocally, type LocalServer } from './local-server.js';

/**
 * An upstream whose answers say it ran a tool on its side, in the vendor's documented wire format: Gemini grounded
 * with Google Search (`groundingMetadata.webSearchQueries`), whole and streamed.
 */
export const SEARCH_PROMPT_TOKENS = 12;
export const SEARCH_OUTPUT_TOKENS = 5;
function geminiAnswer() {
  return {
    candidates: [
      {
        content: { role: 'model', parts: [{ text: 'grounded answer' }] },
        finishReason: 'STOP',
        index: 0,
        groundingMetadata: { webSearchQueries: ['tollway gateway'], groundingChunks: [] },
      },
    ],
    usageMetadata: {
      promptTokenCount: SEARCH_PROMPT_TOKENS,
      candidatesTokenCount: SEARCH_OUTPUT_TOKENS,
      totalTokenCount: SEARCH_PROMPT_TOKENS + SEARCH_OUTPUT_TOKENS,
    },
    modelVersion: 'gemini-search',
    responseId: 'gem_search',
  };
}

export async function startSearchUpstream(): Promise<LocalServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      if (/:streamGenerateContent$/.test(path)) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(geminiAnswer())}\n\n`);
        return void res.end();
      }
      if (/:generateContent$/.test(path))
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(geminiAnswer()));
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: path } }));
    });
  });
  return listenLocally(server);
}
