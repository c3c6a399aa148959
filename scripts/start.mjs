// `npm start`: builds the console if it is missing or stale, then runs the server in this process's place.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildConsole, consoleIsStale } from './console-build.mjs';

if (consoleIsStale()) buildConsole();
const main = path.resolve(import.meta.dirname, '../packages/server/src/main.ts');
const child = spawn(process.execPath, ['--import', 'tsx', main], { stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
