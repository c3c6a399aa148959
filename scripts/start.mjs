// `npm start`: builds the console and the server bundle if missing or stale (`npm start -- --no-build` skips
// that), then runs the server as a child and lives exactly as long as it:
// - SIGTERM, SIGINT and SIGHUP (the terminal or the parent went away) are passed on; the server stops gracefully
//   and this process exits with its code. If the server has not exited by SHUTDOWN_TIMEOUT plus a margin, it
//   is killed.
// - The server is connected by an IPC channel: if this process dies without passing a signal on (SIGKILL), the
//   channel closes and the server stops gracefully on its own instead of running on orphaned.
// - A broken stdout or stderr (the log reader died) never crashes or holds this process.
// - Its own parent gone (this process re-parented) stops the server too: npm runs this script through sh and, on
//   SIGTERM, signals sh alone, which dies of it without passing the signal on. Under npm, npm itself gone (killed
//   outright: sh lives on, re-parented) stops it as well (Linux, where /proc tells a process's parent).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { buildConsole, consoleIsStale } from './console-build.mjs';
import { buildServer, serverBundle, serverIsStale } from './server-build.mjs';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'];
/** The server's own default grace period (SHUTDOWN_TIMEOUT), seconds. */
const DEFAULT_SHUTDOWN_TIMEOUT_S = 25;
/** How long after the server's deadline it is killed. */
const KILL_MARGIN_MS = 5_000;
/** How often the wrapper checks that its parent still runs. */
const PARENT_CHECK_MS = 250;

for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
// Read before the build, which may take a while: a parent gone meanwhile is noticed once the server runs.
const parent = process.ppid;

/** The parent process id of `pid` (Linux /proc), or undefined where that cannot be read. */
function parentOf(pid) {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: the fields after its ')' are fixed.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}
// Run by `npm start`: the parent is npm's sh, whose own parent is npm.
const npm = process.env.npm_lifecycle_event ? parentOf(parent) : undefined;

if (!process.argv.includes('--no-build')) {
  if (consoleIsStale()) buildConsole();
  if (serverIsStale()) {
    console.log('tollway: building the server (packages/server)…');
    await buildServer();
  }
}
const child = spawn(process.execPath, ['--enable-source-maps', serverBundle], {
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
// The server validates SHUTDOWN_TIMEOUT itself; a value it refuses ends it at start-up.
const graceMs = (Number(process.env.SHUTDOWN_TIMEOUT) || DEFAULT_SHUTDOWN_TIMEOUT_S) * 1000;
let killTimer;
/** Passes a stop signal on; the server gets until its deadline plus a margin before it is killed. */
const stopServer = (sig) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  killTimer ??= setTimeout(() => child.kill('SIGKILL'), graceMs + KILL_MARGIN_MS);
};
for (const sig of STOP_SIGNALS) process.on(sig, () => stopServer(sig));
// A parent that went away (npm's sh killed), or npm itself gone, is a stop, as SIGHUP is: never run on orphaned.
const parentCheck = setInterval(() => {
  if (process.ppid === parent && (npm === undefined || parentOf(parent) === npm)) return;
  clearInterval(parentCheck);
  stopServer('SIGHUP');
}, PARENT_CHECK_MS);
parentCheck.unref();
