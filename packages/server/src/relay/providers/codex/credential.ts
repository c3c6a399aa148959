import { readCodexCredential, type CodexCredential } from '../../../core/codex-credential.js';
import { UpstreamPrepareError } from '../prepare.js';

export type { CodexCredential } from '../../../core/codex-credential.js';

const PROBLEMS = {
  not_json: 'a Codex key is a JSON object with access_token and account_id',
  no_access_token: 'the Codex key has no access_token',
  no_account_id: 'the Codex key has no account_id',
} as const;

/** The credential in a key (JSON with `access_token` and `account_id`); throws a readable error otherwise. */
export function codexCredential(key: string): CodexCredential {
  const c = readCodexCredential(key);
  if (typeof c === 'string') throw new UpstreamPrepareError(PROBLEMS[c], 401);
  return c;
}
