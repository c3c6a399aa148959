import { request } from 'undici';
import type { DetailLog } from '../../core/providers.js';
import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { redactKeys } from '../../modules/channels/status.js';
import { upstreamErrorMessage } from './upstream-error.js';

const TIMEOUT_MS = 20_000;
const MAX_BODY = 8 * 1024 * 1024;
const ERROR_MESSAGE_CHARS = 300;

/** A JSON error answer's message, short; undefined for anything else: a page that is not a model API's answer is never echoed. */
export function modelErrorMessage(text: string, contentType: string): string | undefined {
  if (!contentType.toLowerCase().includes('json')) return undefined;
  return upstreamErrorMessage(text)?.slice(0, ERROR_MESSAGE_CHARS);
}

/** "HTTP 404 (text/html)": what a caller learns of an answer that is not a model API's error. */
export function answerSummary(status: number, contentType: string): string {
  const type = contentType.split(';')[0]!.trim();
  return `HTTP ${status}${type ? ` (${type})` : ''}`;
}

/**
 * GET a JSON document from an upstream with undici (model lists, balances). Failures become an ApiError (502)
 * whose message never contains the key nor the body of a page that is not a model API's answer (that goes to `log`).
 */
export async function getJson<T>(
  url: string,
  headers: Record<string, string>,
  key: string,
  log?: DetailLog,
): Promise<T> {
  let status: number;
  let contentType = '';
  let text = '';
  try {
    const res = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    status = res.statusCode;
    contentType = String(res.headers['content-type'] ?? '');
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) {
        res.body.destroy();
        throw new Error('the upstream answer is too large');
      }
      chunks.push(chunk as Buffer);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    const reason = redactKeys((err as Error).message, [key]);
    throw coded(ErrorCode.UpstreamUnreachable, `cannot reach the upstream: ${reason}`, { reason }, 502);
  }
  const refuse = (message: string): never => {
    log?.warn({ status, contentType, body: redactKeys(text, [key]) }, 'upstream answer refused');
    const reason = redactKeys(message, [key]);
    throw coded(ErrorCode.UpstreamRefused, reason, { reason }, 502);
  };
  if (status >= 400) {
    const known = modelErrorMessage(text, contentType);
    return refuse(`upstream answered ${known ? `${status}: ${known}` : answerSummary(status, contentType)}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    return refuse(`upstream answered ${answerSummary(status, contentType)}, which is not JSON`);
  }
}
