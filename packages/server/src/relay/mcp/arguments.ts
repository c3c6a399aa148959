/** The longest arguments text a log row keeps (longer is cut and marked). */
export const MCP_LOGGED_ARGUMENTS_MAX = 4000;
/** Replaces a secret's value in logged arguments. */
export const SECRET_MASK = '***';
const MAX_DEPTH = 8;
const CUT_MARK = '…';

/** Argument names whose values are credentials: never logged, whatever the server's setting. */
const SECRET_NAME =
  /pass(word|wd|phrase)?|secret|token|api[-_]?key|auth|credential|cookie|session|private[-_]?key|signature|bearer/i;
/** Values that look like credentials by their shape, under any name. */
const SECRET_VALUE =
  /^(sk|pk|rk|ghp|gho|ghs|xox[abpr])[-_][A-Za-z0-9_-]{8,}|^bearer\s|^basic\s|^eyJ[A-Za-z0-9_-]{8,}\./i;

function masked(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? SECRET_MASK : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return CUT_MARK;
  if (Array.isArray(value)) return value.map((v) => masked(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) ? SECRET_MASK : masked(v, depth + 1);
  return out;
}

/**
 * A tool call's arguments as a log row keeps them when the server's `log_arguments` is on: values under
 * secret-looking names (password, token, api_key, authorization, …) and values shaped like credentials (sk-…,
 * Bearer …, JWTs) masked at every depth, the text cut at MCP_LOGGED_ARGUMENTS_MAX characters.
 */
export function loggedArguments(args: Record<string, unknown> | undefined): string {
  if (!args) return '';
  const text = JSON.stringify(masked(args, 0));
  return text.length > MCP_LOGGED_ARGUMENTS_MAX ? text.slice(0, MCP_LOGGED_ARGUMENTS_MAX) + CUT_MARK : text;
}
