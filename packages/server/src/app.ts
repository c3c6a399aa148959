import http from 'node:http';
import { subscriptionRoutes } from './modules/subscriptions/routes.js';
import { budgetRoutes } from './modules/budgets/routes.js';
import { organizationRoutes } from './modules/organizations/routes.js';
import { orgSpendRoutes } from './modules/org-spend/routes.js';
import { normalizeForwarded } from './core/client-ip.js';
import { serverTimeoutOptions, watchBody } from './http/server-timeouts.js';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { hotPathEntry, installRelayRoutes, type RelayContext } from './relay/index.js';
import { installErrorHandler } from './http/errors-handler.js';
import { acceptFormBodies } from './http/form-body.js';
import { registerRoute } from './http/register.js';
import { Router, type RouteHooks, type RouteModule } from './http/route.js';
import { installConsole } from './http/spa.js';
import { installSecurityHeaders, RAW_SECURITY_HEAD, SecurityPolicy } from './http/security-headers.js';
import { gatewayResponseClass } from './lib/gateway-response.js';
import { arrivedAfterClose } from './lib/lingering-close.js';
import { auditRoutes } from './modules/audit/routes.js';
import { auditTrailFor } from './modules/audit/trail.js';
import { authenticateCaller, requireLevel } from './modules/auth/guard.js';
import { authRoutes } from './modules/auth/routes.js';
import { channelRoutes } from './modules/channels/routes.js';
import { checkInRoutes } from './modules/checkin/routes.js';
import { emailRoutes } from './modules/email/routes.js';
import { channelToolRoutes } from './modules/channels/routes-tools.js';
import { channelManageRoutes } from './modules/channels/routes-manage.js';
import { channelCodexRoutes } from './modules/channels/routes-codex.js';
import { groupRoutes } from './modules/groups/routes.js';
import { dataRoutes } from './modules/data/routes.js';
import { logRoutes } from './modules/logs/routes.js';
import { messageRoutes } from './modules/messages/routes.js';
import { oauthRoutes } from './modules/oauth/routes.js';
import { ldapRoutes } from './modules/ldap/routes.js';
import { openapiRoutes } from './modules/openapi/routes.js';
import { docsRoutes } from './modules/docs/routes.js';
import { metricsRoutes } from './http/metrics-route.js';
import { healthRoutes } from './http/health-routes.js';
import { optionRoutes } from './modules/options/routes.js';
import { pricingRoutes } from './modules/pricing/routes.js';
import { modelRegistryRoutes } from './modules/model-registry/routes.js';
import { ratioPresetRoutes } from './modules/ratio-preset/routes.js';
import { redemptionRoutes } from './modules/redemption/routes.js';
import { setupRoutes } from './modules/setup/routes.js';
import { statusRoutes } from './modules/status/routes.js';
import { taskRoutes } from './modules/tasks/routes.js';
import { tokenRoutes } from './modules/tokens/routes.js';
import { tokenKeyRoutes } from './modules/tokens/key-routes.js';
import { topUpRoutes } from './modules/topup/routes.js';
import { twoFactorRoutes } from './modules/twofa/routes.js';
import { passkeyRoutes } from './modules/passkeys/routes.js';
import { userAdminRoutes } from './modules/users/routes-admin.js';
import { selfRoutes } from './modules/users/routes-self.js';
import { siteInfoRoutes } from './modules/site-info/routes.js';
import { oauthBindingRoutes } from './modules/oauth/bindings-routes.js';
import { customOAuthBackchannelRoutes } from './modules/custom-oauth/backchannel.js';
import { unavailableRoutes } from './modules/unavailable/routes.js';
import { unavailableExternalRoutes } from './modules/unavailable/external.js';
import { affinityRoutes } from './modules/affinity/routes.js';
import { ratioSyncRoutes } from './modules/ratio-sync/routes.js';
import { oidcDiscoveryRoutes } from './modules/oidc-discovery/routes.js';
import { customOAuthRoutes } from './modules/custom-oauth/routes.js';
import { mcpServerRoutes } from './modules/mcp-servers/routes.js';
import { performanceRoutes } from './modules/performance/routes.js';

/** Every management API module; a new module is added here and gets auth, validation and docs for free. */
export const routeModules: RouteModule[] = [
  statusRoutes,
  setupRoutes,
  authRoutes,
  emailRoutes,
  oauthRoutes,
  ldapRoutes,
  selfRoutes,
  twoFactorRoutes,
  passkeyRoutes,
  userAdminRoutes,
  groupRoutes,
  optionRoutes,
  channelRoutes,
  channelToolRoutes,
  channelManageRoutes,
  channelCodexRoutes,
  tokenRoutes,
  tokenKeyRoutes,
  logRoutes,
  messageRoutes,
  checkInRoutes,
  taskRoutes,
  dataRoutes,
  pricingRoutes,
  modelRegistryRoutes,
  ratioPresetRoutes,
  redemptionRoutes,
  topUpRoutes,
  subscriptionRoutes,
  budgetRoutes,
  organizationRoutes,
  orgSpendRoutes,
  auditRoutes,
  openapiRoutes,
  docsRoutes,
  metricsRoutes,
  healthRoutes,
  siteInfoRoutes,
  oauthBindingRoutes,
  customOAuthBackchannelRoutes,
  oidcDiscoveryRoutes,
  customOAuthRoutes,
  unavailableRoutes,
  unavailableExternalRoutes,
  affinityRoutes,
  ratioSyncRoutes,
  performanceRoutes,
  mcpServerRoutes,
];

/** What route registration (http/register.ts) takes from the modules: who calls, at what level, and the audit log. */
const routeHooks: RouteHooks = { authenticate: authenticateCaller, requireLevel, auditTrailFor };

export interface BuiltApp {
  app: FastifyInstance;
  router: Router;
  /** Every route Fastify registered (the permission matrix checks none bypasses the router). */
  registered: { method: string; url: string }[];
}

/** Builds the HTTP server (API and console) over a ready context. */
export async function buildApp(ctx: RelayContext): Promise<BuiltApp> {
  const hotPath = hotPathEntry(ctx, { bodyLimit: ctx.config.bodyLimit });
  // Graceful stop: new connections are refused at once; requests in flight (relay streams included) finish;
  // then every remaining keep-alive connection is closed so it cannot hold the process for its idle timeout.
  let closing = false;
  let inFlight = 0;
  const app = Fastify({
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    bodyLimit: ctx.config.bodyLimit,
    // Every request's X-Forwarded-For is replaced by the resolved client address first (normalizeForwarded).
    trustProxy: true,
    logController: new LogController({ disableRequestLogging: process.env.LOG_REQUESTS !== 'true' }),
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // The relay's JSON calls go to the hot-path entry first; every other request (and those it declines) to Fastify.
    serverFactory: (fastifyHandler) => {
      // A slow or trickling client is cut off while it sends (headers, whole request, pauses in the body, its rate); the
      // answer, streamed or not, is never timed.
      const timeouts = {
        headersMs: ctx.config.headersTimeout * 1000,
        requestMs: ctx.config.requestTimeout * 1000,
        bodyIdleMs: ctx.config.bodyIdleTimeout * 1000,
        bodyMinRate: ctx.config.bodyMinRate,
        bodyMinRateGraceMs: ctx.config.bodyMinRateGrace * 1000,
      };
      // Every response presets the security headers: they go out in the answer's one writeHead (lib/gateway-response.ts).
      const options = { ...serverTimeoutOptions(timeouts), ServerResponse: gatewayResponseClass(RAW_SECURITY_HEAD) };
      const server = http.createServer(options, (req, res) => {
        if (arrivedAfterClose(req)) return;
        inFlight++;
        res.once('close', () => inFlight--);
        if (closing) res.setHeader('connection', 'close');
        watchBody(req, res, timeouts);
        normalizeForwarded(req, ctx.options, ctx.config.trustProxy);
        if (!hotPath(req, res)) fastifyHandler(req, res);
      });
      // Fastify's own default for the servers it creates.
      server.keepAliveTimeout = 72_000;
      return server;
    },
  });
  installErrorHandler(app);
  acceptFormBodies(app);
  const securityPolicy = new SecurityPolicy(ctx.options);
  installSecurityHeaders(app, securityPolicy);
  app.addHook('preClose', async () => {
    closing = true;
    const sweep = setInterval(() => {
      if (inFlight > 0) return;
      clearInterval(sweep);
      app.server.closeAllConnections();
    }, 25);
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  const registered: BuiltApp['registered'] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) registered.push({ method, url: r.url });
  });
  const router = new Router();
  for (const mod of routeModules) mod(router);
  for (const def of router.routes) registerRoute(app, ctx, def, routeHooks);
  await installRelayRoutes(app, ctx);
  await installConsole(app, ctx, securityPolicy);
  return { app, router, registered };
}
