import type { Router } from '../../http/route.js';
import { discoveryAnswer, discoveryBody } from './schema.js';
import { discoverOidc } from './service.js';

/** Discovery for the built-in OIDC sign-in settings (root): the server fetches the well-known document. */
export function oidcDiscoveryRoutes(r: Router): void {
  r.add({
    method: 'POST',
    url: '/api/oauth/oidc/discovery',
    level: 'root',
    summary:
      "Reads an OpenID provider's well-known document (`well_known_url`) through the outbound guard and answers its issuer, authorization_endpoint, token_endpoint and userinfo_endpoint; saves nothing",
    tags: ['options'],
    body: discoveryBody,
    response: discoveryAnswer,
    // Reads a document and changes nothing (refused attempts are still recorded).
    audit: false,
    handler: ({ ctx, body }) => discoverOidc(ctx, body),
  });
}
