import type { InboxMessage } from '@tollway/shared';
import { apiGet, apiGetPage } from '../../lib/api';
import { renderContent } from '../../lib/markdown';

export const INBOX_KEY = ['inbox'] as const;
export const UNREAD_KEY = ['unread_count'] as const;

export const fetchInbox = (page: number, pageSize: number) =>
  apiGetPage<InboxMessage>(`/api/user/messages?p=${page}&page_size=${pageSize}`, page);

/** Opens one message of the own inbox (the server marks it read). */
export const openMessage = (id: number) => apiGet<InboxMessage>(`/api/user/messages/${id}`, { silent: true });

/**
 * Preview of a message body: rendered in its own format (sanitized) and reduced to its text, so no tags or
 * Markdown marks show; at most 100 characters (97 and an ellipsis).
 */
export function previewOf(content: string, format: InboxMessage['format']): string {
  const doc = new DOMParser().parseFromString(renderContent(content, format), 'text/html');
  const text = (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
