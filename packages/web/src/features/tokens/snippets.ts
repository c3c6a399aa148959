import type { Token } from './api';

/** The gateway's OpenAI-compatible base URL as seen from this browser. */
export const apiBaseUrl = () => `${window.location.origin}/v1`;

/** OPENAI_BASE_URL and OPENAI_API_KEY lines (`key`: the full sk- key), ready for a .env file or a shell. */
export const envSnippet = (key: string) => `OPENAI_BASE_URL=${apiBaseUrl()}\nOPENAI_API_KEY=${key}`;

/** A minimal chat call with the full sk- `key`; the model is the token's first allowed model when it is limited. */
export function curlSnippet(token: Token, key: string): string {
  const limited = token.model_limits_enabled ? token.model_limits.split(',').find(Boolean) : undefined;
  const body = JSON.stringify({ model: limited ?? 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });
  return [
    `curl ${apiBaseUrl()}/chat/completions \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${body}'`,
  ].join('\n');
}
