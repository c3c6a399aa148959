import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/**
 * LIKE patterns built from caller input: the one place a search turns text into a pattern. The caller's text is
 * literal (its %, _ and the escape character match only themselves) on SQLite, PostgreSQL and MariaDB alike.
 *
 * The escape character is `!`, named in every statement: SQLite has no default escape character, and a
 * backslash would need doubling inside MySQL's string literal. With an explicit ESCAPE, a backslash is an
 * ordinary character on every dialect.
 */
const LIKE_ESCAPE = '!';
const LIKE_SPECIAL = /[!%_]/g;

/** The text with LIKE's wildcards and the escape character escaped. */
export const escapeLike = (text: string): string => text.replace(LIKE_SPECIAL, `${LIKE_ESCAPE}$&`);

/** Where the caller's text must appear in the column's value. */
export type LikePlace = 'contains' | 'starts' | 'ends';

function patternOf(text: string, place: LikePlace): string {
  const literal = escapeLike(text);
  return place === 'contains' ? `%${literal}%` : place === 'starts' ? `${literal}%` : `%${literal}`;
}

/**
 * `subject LIKE pattern ESCAPE '!'`: the subject is a column name or an expression (e.g. lower(name)), the
 * caller's text is matched literally at `place`.
 */
export function likeText(
  subject: string | Expression<unknown>,
  text: string,
  place: LikePlace = 'contains',
): RawBuilder<SqlBool> {
  const s = typeof subject === 'string' ? sql.ref(subject) : subject;
  return sql<SqlBool>`${s} like ${patternOf(text, place)} escape ${sql.lit(LIKE_ESCAPE)}`;
}
