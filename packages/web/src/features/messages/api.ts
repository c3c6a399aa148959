import type { AdminMessage, MessageRecipient, Page, UpdateMessageBody } from '@tollway/shared';
import { apiDelete, apiGet, apiGetPage, apiPost, apiPut } from '../../lib/api';

export interface MessageQuery {
  page: number;
  pageSize: number;
  keyword: string;
  /** ISO strings; sent only when both are picked. */
  range: [string, string] | null;
}

export type MessageInput = UpdateMessageBody;

export const MESSAGES_KEY = ['admin-messages'] as const;

/** GET /api/admin/messages, or /search when a keyword or a full date range is given. */
export function fetchMessages(q: MessageQuery): Promise<Page<AdminMessage>> {
  const params = new URLSearchParams({ p: String(q.page), page_size: String(q.pageSize) });
  const keyword = q.keyword.trim();
  if (keyword) params.set('keyword', keyword);
  if (q.range) {
    params.set('start_date', q.range[0]);
    params.set('end_date', q.range[1]);
  }
  const search = keyword !== '' || q.range !== null;
  return apiGetPage<AdminMessage>(`/api/admin/messages${search ? '/search' : ''}?${params.toString()}`, q.page);
}

export const fetchMessage = (id: number) => apiGet<AdminMessage>(`/api/admin/messages/${id}`);
export const fetchRecipients = (id: number, page: number) =>
  apiGetPage<MessageRecipient>(`/api/admin/messages/${id}/recipients?p=${page}&page_size=10`, page);
export const createMessage = (body: MessageInput & { user_ids: number[] }) =>
  apiPost<{ id: number }>('/api/admin/messages', body);
export const updateMessage = (id: number, body: MessageInput) =>
  apiPut(`/api/admin/messages/${id}`, { ...body, title: body.title.trim(), content: body.content.trim() });
export const deleteMessage = (id: number) => apiDelete(`/api/admin/messages/${id}`);

export interface UserOption {
  id: number;
  username: string;
  display_name?: string;
}

/** Users for the recipient picker (the admin user search, first 50 matches). */
export const searchUsers = (keyword: string) =>
  apiGet<Page<UserOption>>(`/api/user/search?keyword=${encodeURIComponent(keyword)}&p=1&page_size=50`).then(
    (d) => d?.items ?? [],
  );
