import { TOKEN_KEY_PREFIX } from '@tollway/shared';

/**
 * A saved chat link with its placeholders filled: `{key}` becomes the user's API key (sk-…), `{address}` the
 * server's address (the configured one, else this site's origin). Undefined when there is no link.
 */
export function fillChatLink(
  template: string | undefined,
  key: string | undefined,
  serverAddress: string | undefined,
): string | undefined {
  if (!template) return undefined;
  const address = (serverAddress || window.location.origin).replace(/\/+$/, '');
  return template
    .replaceAll('{address}', encodeURIComponent(address))
    .replaceAll('{key}', key ? `${TOKEN_KEY_PREFIX}${key}` : '');
}

/** The link of saved chat entry `index` ({name: url} objects), or undefined when it is missing or malformed. */
export function chatEntry(chats: unknown, index: number): { name: string; url: string } | undefined {
  if (!Array.isArray(chats)) return undefined;
  const entry = chats[index] as Record<string, unknown> | undefined;
  if (!entry || typeof entry !== 'object') return undefined;
  const [name, url] = Object.entries(entry)[0] ?? [];
  return typeof name === 'string' && typeof url === 'string' ? { name, url } : undefined;
}
