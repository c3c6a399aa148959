import type { FastifyInstance } from 'fastify';
import { authorize } from '../../modules/auth/guard.js';
import { tokensOf } from '../../modules/tokens/service.js';
import { nowSeconds } from '../../lib/time.js';
import { authenticateKey } from './authenticate.js';
import { RelayError } from '../pipeline/errors.js';
import { relayCall } from '../pipeline/handler.js';
import { openAIInbound } from './inbound.js';
import { openAIChat } from '../providers/openai/chat.js';
import { relayFailure, writeRelayError } from '../pipeline/respond.js';
import type { RelayContext } from '../pipeline/services.js';

const chatInbound = openAIInbound('chat');

/**
 * The console's playground: `POST /pg/chat/completions` with the console session instead of an
 * API key. The call is billed to the user's oldest usable token, in the group the user picks among theirs,
 * through the same relay pipeline as any API call (limits, reservation, retries, logs).
 */
export function installPlayground(scope: FastifyInstance, ctx: RelayContext): void {
  scope.post('/pg/chat/completions', async (req, reply) => {
    reply.hijack();
    const res = reply.raw;
    try {
      const user = (await authorize(req, ctx, 'user'))!;
      const call = chatInbound(req);
      const asked = typeof call.body.group === 'string' ? call.body.group.trim() : '';
      // The group picks channels and ratios here; it is not a parameter the upstream knows.
      delete call.body.group;
      if (asked && !tokensOf(ctx).usableGroups(user).includes(asked))
        throw new RelayError(
          403,
          `group ${asked} is not available to you`,
          'invalid_request_error',
          'group_not_allowed',
        );
      await relayCall(
        ctx,
        req,
        res,
        () => call,
        async () => {
          const key = await tokensOf(ctx).store.usableKey(user.id, nowSeconds());
          if (!key)
            throw new RelayError(
              403,
              'no enabled API token: create one on the API tokens page first',
              'invalid_request_error',
              'no_enabled_token',
            );
          const { auth, group } = await authenticateKey(key, req.ip, ctx.relay.tokens);
          return { auth, group: asked || group };
        },
      );
    } catch (err) {
      writeRelayError(res, relayFailure(err, ctx.log), openAIChat);
    }
  });
}
