import type { IncomingHttpHeaders } from 'node:http';
import { ErrorCode, parseTags, TAG_LENGTH_MAX, TAGS_HEADER, TAGS_MAX, tagsColumn } from '@tollway/shared';
import { RelayError } from '../pipeline/errors.js';
import { withTags, type TokenAuth } from './auth-cache.js';

/** What a refusal of a call's tags says. */
const TAGS_REFUSED: Record<'too_many' | 'too_long' | 'bad_char', string> = {
  too_many: `a call carries at most ${TAGS_MAX} tags`,
  too_long: `a tag is at most ${TAG_LENGTH_MAX} characters`,
  bad_char: 'a tag has only letters, digits and _ . : -',
};

/** The `metadata.tags` string of a JSON body, if any. */
function metadataTags(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const metadata = (body as { metadata?: unknown }).metadata;
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const tags = (metadata as { tags?: unknown }).tags;
  return typeof tags === 'string' ? tags : undefined;
}

/**
 * A call's spend tags (the x-tollway-tags header and the body's metadata.tags, docs/operating/budgets.md) on its
 * view of the token: the cached object itself for an untagged call (nothing allocated), a copy carrying them
 * otherwise (its logs' `tags` column, its tag budgets). Bad tags: 400 tags_invalid, thrown (the caller's shape).
 */
export function tagCall(auth: TokenAuth, headers: IncomingHttpHeaders, body?: unknown): TokenAuth {
  const header = headers[TAGS_HEADER];
  const fromHeader = typeof header === 'string' ? header : header?.join(',');
  const fromBody = metadataTags(body);
  if (fromHeader === undefined && fromBody === undefined) return auth;
  const tags = parseTags(fromHeader, fromBody);
  if (typeof tags === 'string')
    throw new RelayError(400, `invalid tags: ${TAGS_REFUSED[tags]}`, 'invalid_request_error', ErrorCode.TagsInvalid);
  return withTags(auth, tags, tagsColumn(tags));
}
