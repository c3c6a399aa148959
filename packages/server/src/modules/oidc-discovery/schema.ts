import { z } from 'zod';

/** Longest well-known URL accepted. */
export const MAX_WELL_KNOWN_URL = 2048;
/** How long the provider may take to answer, headers and body together. */
export const DISCOVERY_TIMEOUT_MS = 10_000;
/** Largest discovery document read (real ones are a few KB). */
export const MAX_DISCOVERY_BYTES = 256 * 1024;
/** Longest endpoint URL taken from the document. */
export const MAX_ENDPOINT_URL = 2048;

export const discoveryBody = z.object({
  well_known_url: z.string().trim().min(1).max(MAX_WELL_KNOWN_URL),
});
export type DiscoveryBody = z.infer<typeof discoveryBody>;

/** An endpoint the document names: an http(s) URL, else ''. */
const endpoint = z.string().max(MAX_ENDPOINT_URL);

/** The fields of the provider's document the OIDC settings use (oidc.authorization_endpoint and the others). */
export const discoveryAnswer = z.object({
  issuer: endpoint,
  authorization_endpoint: endpoint,
  token_endpoint: endpoint,
  userinfo_endpoint: endpoint,
});
export type DiscoveryAnswer = z.infer<typeof discoveryAnswer>;
