import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';
import { codexCredential } from './credential.js';
import { codexOAuthOf } from '../../../modules/channels/codex-oauth.js';

/** Fields the Codex backend refuses: it sets its own limits and sampling. */
const DROPPED = ['max_output_tokens', 'temperature', 'frequency_penalty', 'presence_penalty'] as const;

/**
 * Codex (type 57): the ChatGPT backend's Responses API, `POST {base}/backend-api/codex/responses`, with the access
 * token and account id of the channel's OAuth credential (a JSON key). The backend answers only streams and keeps
 * nothing: every call streams (a plain call is collected), `store` is false, `instructions` is always present.
 * A refused access token is renewed with the credential's refresh token (management API's Codex service).
 */
export const codexAdaptor: UpstreamAdaptor<'responses'> = {
  format: 'responses',
  target({ channel }) {
    return {
      url: new URL(`${baseUrlOf(channel)}/backend-api/codex/responses`),
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'openai-beta': 'responses=experimental',
        originator: 'codex_cli_rs',
      },
    };
  },
  prepare({ key }, req) {
    const c = codexCredential(key);
    const body: Record<string, unknown> = {
      ...req.body,
      instructions: req.body.instructions ?? '',
      store: false,
      stream: true,
    };
    for (const field of DROPPED) delete body[field];
    delete body.stream_options;
    return {
      url: req.url,
      headers: {
        ...req.headers,
        authorization: `Bearer ${c.access_token.trim()}`,
        'chatgpt-account-id': c.account_id.trim(),
      },
      body: JSON.stringify(body),
    };
  },
  // An expired access token (401) is refreshed with the credential's refresh token, stored, and retried once.
  credentialRefused({ channel, key }, ctx) {
    return codexOAuthOf(ctx).renew(channel.id, key);
  },
};
