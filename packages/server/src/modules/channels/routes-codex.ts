import { idParam } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { codexOAuthOf } from './codex-oauth.js';

const startAnswer = z.object({ authorize_url: z.string() });
const completeBody = z.object({
  /** The address the sign-in redirected to (or its query, or `code#state`). */
  input: z.string().trim().min(1, 'input is required').max(8192),
});
const info = {
  account_id: z.string(),
  email: z.string(),
  expires_at: z.string(),
  last_refresh: z.string(),
};
/** The pasted address holds a one-time code: never written to the audit log. */
const noFields = () => undefined;

/**
 * Codex channels' OAuth credential (type 57), as new-api's console calls it: sign-in with PKCE (start, then
 * complete with the redirected address), refresh, and the ChatGPT backend's usage document.
 */
export function channelCodexRoutes(r: Router): void {
  const tags = ['channels'];
  for (const forChannel of [false, true]) {
    const prefix = forChannel ? '/api/channel/:id/codex/oauth' : '/api/channel/codex/oauth';
    const params = forChannel ? idParam : undefined;
    const target = forChannel ? 'of the channel' : 'for a new channel';
    r.add({
      method: 'POST',
      url: `${prefix}/start`,
      level: 'admin',
      summary: `Start a Codex (ChatGPT) sign-in ${target}: data.authorize_url to open; the PKCE state and verifier stay on this server for 10 minutes`,
      tags,
      params,
      response: startAnswer,
      audit: { action: 'channel.codex_sign_in_start', target: 'channel', fields: noFields },
      handler: ({ ctx, user, params: p }) =>
        codexOAuthOf(ctx).start(user!.id, forChannel ? (p as { id: number }).id : 0),
    });
    r.add({
      method: 'POST',
      url: `${prefix}/complete`,
      level: 'admin',
      summary: forChannel
        ? 'Complete the sign-in with the redirected address ({input}): the channel key becomes the new credential (never answered)'
        : 'Complete the sign-in with the redirected address ({input}): data.key is the credential JSON for the new channel',
      tags,
      params,
      body: completeBody,
      response: forChannel
        ? z.object({ channel_id: z.number().int(), ...info })
        : z.object({ key: z.string(), ...info }),
      successMessage: forChannel ? 'saved' : 'generated',
      audit: { action: 'channel.codex_sign_in', target: 'channel', fields: noFields },
      handler: ({ ctx, user, params: p, body }) =>
        codexOAuthOf(ctx).complete(user!.id, forChannel ? (p as { id: number }).id : 0, body.input),
    });
  }
  r.add({
    method: 'POST',
    url: '/api/channel/:id/codex/refresh',
    level: 'admin',
    summary: "Refresh a Codex channel's tokens with its refresh token; data says for whom and until when (no token)",
    tags,
    params: idParam,
    response: z.object({
      ...info,
      channel_id: z.number().int(),
      channel_type: z.number().int(),
      channel_name: z.string(),
    }),
    successMessage: 'refreshed',
    audit: { action: 'channel.codex_refresh', target: 'channel', fields: noFields },
    handler: ({ ctx, params }) => codexOAuthOf(ctx).refresh(params.id),
  });
  r.add({
    method: 'GET',
    url: '/api/channel/:id/codex/usage',
    level: 'admin',
    summary:
      "The ChatGPT backend's usage and rate limits of a Codex channel's account: {success, message, upstream_status, data} with the backend's document as data",
    tags,
    params: idParam,
    raw: true,
    handler: async ({ ctx, params, reply }) => reply.send(await codexOAuthOf(ctx).usage(params.id)),
  });
}
