// A real MCP server over stdio (the official SDK's McpServer), started by Tollway as a registered stdio server in
// the MCP gateway tests: `node mcp-stdio-server.ts` (Node runs the TypeScript as it is).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { z } from 'zod';

const server = new McpServer({ name: 'stdio-mock', version: '1.0.0' });
// The SDK's types name the workspace root's zod; the runtime schema is this package's zod 4 (see mock-mcp.ts).
const inputSchema = { word: z.string() } as Record<string, unknown> as ZodRawShapeCompat;
server.registerTool('whoami', { description: 'Says which process answers', inputSchema }, ({ word }) => ({
  content: [{ type: 'text', text: `pid ${process.pid} heard ${String(word)}` }],
}));
await server.connect(new StdioServerTransport());
