import { TOKEN_KEY_PREFIX, type createTokenBody, type Page, type TokenPublic } from '@tollway/shared';
import type { z } from 'zod';
import { apiDelete, apiGet, apiGetPage, apiPost, apiPut } from '../../lib/api';

/**
 * A token as GET /api/token/ returns it to its owner. `key` is masked by the server (POST /api/token/:id/key
 * reveals it) and comes without the sk- prefix; the console shows and copies sk-<key>. `status` is the display
 * status: 3/4 are derived by the server.
 */
export type Token = TokenPublic;

export interface TokenQuery {
  page: number;
  pageSize: number;
  /** Part of the name. */
  keyword: string;
  /** Part of the key (sk- optional). */
  token: string;
}

/** Editable fields, as POST and PUT /api/token/ take them. */
export type TokenInput = Omit<z.input<typeof createTokenBody>, 'count'>;

export const TOKENS_KEY = ['tokens'] as const;

/** A key as shown and copied: sk-<key>. */
export const withPrefix = (key: string) => (key.startsWith(TOKEN_KEY_PREFIX) ? key : `${TOKEN_KEY_PREFIX}${key}`);

/** POST /api/token/:id/key: the token's full key, sk- prefixed. */
export const revealKey = (id: number) =>
  apiPost<{ key: string }>(`/api/token/${id}/key`).then((e) => withPrefix(e.data?.key ?? ''));

/** POST /api/token/batch/keys: the full keys of the given tokens (in their order), sk- prefixed. */
export const revealKeys = (ids: number[]) =>
  apiPost<{ keys: Record<string, string> }>('/api/token/batch/keys', { ids }).then((e) =>
    ids.flatMap((id) => {
      const key = e.data?.keys[String(id)];
      return key ? [withPrefix(key)] : [];
    }),
  );

/** GET /api/token/?p=&size=, or GET /api/token/search with a name or key filter. */
export function fetchTokens(q: TokenQuery): Promise<Page<Token>> {
  const params = new URLSearchParams({ p: String(q.page), size: String(q.pageSize) });
  const keyword = q.keyword.trim();
  const token = q.token.trim();
  const filtered = keyword !== '' || token !== '';
  if (filtered) {
    params.set('keyword', keyword);
    params.set('token', token);
  }
  return apiGetPage<Token>(`/api/token/${filtered ? 'search' : ''}?${params.toString()}`, q.page);
}

export const fetchToken = (id: number) => apiGet<Token>(`/api/token/${id}`);

/** POST /api/token/ makes `count` tokens (extra ones get a random 6-character suffix on the server). */
export const createTokens = (body: TokenInput & { count: number }) =>
  apiPost<Token[]>('/api/token/', body).then((e) => e.data ?? []);

export const updateToken = (body: TokenInput & { id: number }) =>
  apiPut<Token>('/api/token/', body).then((e) => e.data);

/** PUT /api/token/?status_only=true; the server refuses enabling an expired or exhausted token. */
export const setTokenStatus = (id: number, status: number) =>
  apiPut<Token>('/api/token/?status_only=true', { id, status }).then((e) => e.data);

export const deleteToken = (id: number) => apiDelete(`/api/token/${id}`);
