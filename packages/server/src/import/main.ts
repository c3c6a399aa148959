// `npm run import -- --from <DSN> …` (see cli.ts and docs/switching-from-new-api.md).
import { importCommand } from './cli.js';

importCommand(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`tollway import: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
