/**
 * Readable log lines for a person at a terminal: pino's JSON line `{"level":30,"time":…,"msg":"…","port":3000}`
 * becomes `12:04:05 INFO  … port=3000`. Machines (a pipe, a file, a log collector) keep getting the JSON.
 */

/** How the server writes its log to standard output. */
export type LogFormat = 'pretty' | 'json';

/** Readable lines at a terminal, JSON lines otherwise (a pipe, a file, a container's log driver). */
export function chooseLogFormat(isTTY: boolean | undefined): LogFormat {
  return isTTY ? 'pretty' : 'json';
}

/** pino's numeric levels and the label each is printed with. */
const LEVEL_LABELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** ANSI colours of the labels (grey, cyan, green, yellow, red, magenta). */
const LEVEL_COLOURS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Width the level label is padded to, so messages line up. */
const LABEL_WIDTH = 5;
/** Fields every pino line has that the readable form shows otherwise or leaves out. */
const HIDDEN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'v']);
/** The start-up line's field naming the page to open: printed right after the message. */
const OPEN_FIELD = 'open';

export interface PrettyOptions {
  /** ANSI colours on the level labels. */
  colour: boolean;
}

const twoDigits = (n: number) => String(n).padStart(2, '0');

/** The local wall-clock time as HH:MM:SS. */
function clock(ms: unknown): string {
  const d = typeof ms === 'number' ? new Date(ms) : new Date();
  return `${twoDigits(d.getHours())}:${twoDigits(d.getMinutes())}:${twoDigits(d.getSeconds())}`;
}

/** A value as one token: plain when it has no spaces or quotes, JSON (quoted) otherwise. */
function scalar(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return value.join(',');
  return JSON.stringify(value) ?? String(value);
}

/** `key=value` pairs; an object one level deep is spread as `key.sub=value`. */
function fields(record: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (HIDDEN_FIELDS.has(key) || key === OPEN_FIELD || key === 'err' || value === undefined) continue;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [sub, v] of Object.entries(value)) out.push(`${key}.${sub}=${scalar(v)}`);
    } else out.push(`${key}=${scalar(value)}`);
  }
  return out;
}

/** An error's stack (or message), indented under its line. */
function errorBlock(err: unknown): string {
  if (err === null || typeof err !== 'object') return '';
  const e = err as { stack?: unknown; message?: unknown };
  const text = typeof e.stack === 'string' ? e.stack : typeof e.message === 'string' ? e.message : '';
  return text ? `\n${text.replace(/^/gm, '    ')}` : '';
}

/** One pino JSON line (with or without its newline) as a readable line; anything else is returned as it came. */
export function formatLogLine(line: string, opts: PrettyOptions): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return `${line.trimEnd()}\n`;
  const r = record as Record<string, unknown>;
  const level = typeof r.level === 'number' ? r.level : 30;
  const label = (LEVEL_LABELS[level] ?? `L${level}`).padEnd(LABEL_WIDTH);
  const shown = opts.colour ? `\x1b[${LEVEL_COLOURS[level] ?? '0'}m${label}\x1b[0m` : label;
  const msg = typeof r.msg === 'string' ? r.msg : '';
  const open = typeof r[OPEN_FIELD] === 'string' ? ` — open ${r[OPEN_FIELD]}` : '';
  const rest = fields(r);
  const tail = rest.length > 0 ? `  ${rest.join(' ')}` : '';
  return `${clock(r.time)} ${shown} ${msg}${open}${tail}${errorBlock(r.err)}\n`;
}
