/**
 * The relay's one entry: what the app (app.ts) and start-up (bootstrap.ts) use. Everything else in relay/ is reached
 * through these; `npm run deps` refuses an import of a relay file from outside relay/ other than this one.
 * The stages live in entry/ (routes, callers, request bodies), pipeline/ (the call lifecycle), upstream/ (connections
 * and the exchange), billing/ (holds, prices, settlement), limits/, surfaces/ (non-chat calls), tasks/, providers/, ir/.
 */
export { hotPathEntry } from './entry/hot-path.js';
export { installRelayRoutes } from './entry/routes.js';
export { testChannelUpstream } from './entry/channel-test.js';
export { listMcpServerTools } from './entry/mcp-tools.js';
export { createRelayServices } from './pipeline/bootstrap.js';
export type { RelayContext } from './pipeline/services.js';
export { startTaskPoller, type TaskPoller } from './tasks/poller.js';
export { providerCatalog } from './providers/catalog.js';
