import { fullKey, type Token } from './api';

/** The gateway's OpenAI-compatible base URL as seen from this browser. */
export const apiBaseUrl = () => `${window.location.origin}/v1`;

/** OPENAI_BASE_URL and OPENAI_API_KEY lines, ready for a .env file or a shell. */
export const envSnippet = (token: Token) => `OPENAI_BASE_URL=${apiBaseUrl()}\nOPENAI_API_KEY=${fullKey(token)}`;

/** A minimal chat call; the model is the token's first allowed model when it is limited. */
export function curlSnippet(token: Token): string {
  const limited = token.model_limits_enabled ? token.model_limits.split(',').find(Boolean) : undefined;
  const body = JSON.stringify({ model: limited ?? 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });
  return [`curl ${apiBaseUrl()}/chat/completions \\`, `  -H "Authorization: Bearer ${fullKey(token)}" \\`, `  -H "Content-Type: application/json" \\`, `  -d '${body}'`].join('\n');
}
