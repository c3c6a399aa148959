import { ROOT, type Client } from './app.js';

/**
 * A channel's full key as root reads it in the console: the session is verified with root's password
 * (POST /api/verify), then POST /api/channel/:id/key. Throws when either step is refused.
 */
export async function revealChannelKey(root: Client, id: number, password = ROOT.password): Promise<string> {
  const verified = await root.call('POST', '/api/verify', { method: 'password', password });
  if (!verified.body.success) throw new Error(`verify failed: ${verified.body.message}`);
  const res = await root.call<{ key: string }>('POST', `/api/channel/${id}/key`, {});
  if (!res.body.success) throw new Error(`channel key refused: ${res.body.message}`);
  return res.body.data!.key;
}
