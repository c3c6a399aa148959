// `npm start`: builds the console and the server bundle if missing or stale, then runs the server in this
// process's place.
import { spawn } from 'node:child_process';
import { buildConsole, consoleIsStale } from './console-build.mjs';
import { buildServer, serverBundle, serverIsStale } from './server-build.mjs';

if (consoleIsStale()) buildConsole();
if (serverIsStale()) {
  console.log('tollway: building the server (packages/server)…');
  await buildServer();
}
const child = spawn(process.execPath, ['--enable-source-maps', serverBundle], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
