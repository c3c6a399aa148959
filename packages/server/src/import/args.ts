/** Command line of `npm run import`. */
export interface ImportArgs {
  from: string;
  /** new-api's separate log database (its LOG_SQL_DSN); empty: logs are read from --from. */
  logsFrom: string;
  merge: boolean;
  /** Unix seconds from which logs are imported (0: all), -1: none. */
  logsSince: number;
  dryRun: boolean;
  /** --merge-root: the source's root is merged into the target's root. */
  mergeRoot: boolean;
  /** --merge-user SOURCE=TARGET (repeatable). */
  mergeUsers: Record<string, string>;
  /** --rename-user SOURCE=NEW (repeatable). */
  renameUsers: Record<string, string>;
}

export const USAGE =
  'usage: npm run import -- --from <DSN> [--logs-from <DSN>] [--merge [--merge-root] [--merge-user SOURCE=TARGET]… [--rename-user SOURCE=NEW]…] [--logs-since YYYY-MM-DD | --no-logs] [--dry-run]';

/** `a=b` as a pair of non-empty usernames. */
function pair(name: string, v: string): [string, string] {
  const at = v.indexOf('=');
  const [from, to] = at > 0 ? [v.slice(0, at).trim(), v.slice(at + 1).trim()] : ['', ''];
  if (!from || !to) throw new Error(`${name} needs SOURCE=TARGET usernames, e.g. ${name} root=admin`);
  return [from, to];
}

/** Parses the arguments; throws with a one-line message on a bad one. */
export function parseImportArgs(argv: string[]): ImportArgs {
  const out: ImportArgs = {
    from: '',
    logsFrom: '',
    merge: false,
    logsSince: 0,
    dryRun: false,
    mergeRoot: false,
    mergeUsers: {},
    renameUsers: {},
  };
  let noLogs = false;
  let since = '';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${name} needs a value`);
      return v;
    };
    if (name === '--from') out.from = value();
    else if (name === '--logs-from') out.logsFrom = value();
    else if (name === '--merge') out.merge = true;
    else if (name === '--no-logs') noLogs = true;
    else if (name === '--logs-since') since = value();
    else if (name === '--dry-run') out.dryRun = true;
    else if (name === '--merge-root') out.mergeRoot = true;
    else if (name === '--merge-user') {
      const [from, to] = pair(name, value());
      out.mergeUsers[from] = to;
    } else if (name === '--rename-user') {
      const [from, to] = pair(name, value());
      out.renameUsers[from] = to;
    } else throw new Error(`unknown argument "${arg}"`);
  }
  if (!out.from) throw new Error('--from is required');
  const mapped = out.mergeRoot || Object.keys(out.mergeUsers).length + Object.keys(out.renameUsers).length > 0;
  if (mapped && !out.merge) throw new Error('--merge-root, --merge-user and --rename-user need --merge');
  for (const from of Object.keys(out.renameUsers))
    if (out.mergeUsers[from]) throw new Error(`"${from}" is both merged and renamed`);
  if (noLogs && (since || out.logsFrom)) throw new Error('--no-logs excludes --logs-since and --logs-from');
  if (noLogs) out.logsSince = -1;
  if (since) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || Number.isNaN(Date.parse(`${since}T00:00:00Z`)))
      throw new Error('--logs-since must be a date YYYY-MM-DD');
    out.logsSince = Math.floor(Date.parse(`${since}T00:00:00Z`) / 1000);
  }
  return out;
}
