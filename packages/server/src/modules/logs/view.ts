import { LOG_OTHER_ADMIN_KEYS, type LogRow } from '@tollway/shared';
import type { LogRecord } from './store.js';

function common(r: LogRecord): Omit<LogRow, 'channel' | 'channel_name' | 'ip'> {
  return {
    id: r.id,
    created_at: Number(r.created_at),
    type: r.type,
    user_id: r.user_id,
    username: r.username,
    token_id: r.token_id,
    token_name: r.token_name,
    model_name: r.model_name,
    group: r.group,
    prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens,
    quota: Number(r.quota),
    use_time: r.use_time,
    is_stream: r.is_stream === 1,
    content: r.content ?? '',
    request_id: r.request_id,
    other: r.other ?? '',
  };
}

/**
 * An administrator's view: everything, with the channel id as `channel`; a reseller organization's call also with
 * its billed_quota (the member's price; absent elsewhere, so new-api's rows are unchanged).
 */
export function toAdminLog(r: LogRecord): LogRow {
  const row: LogRow = { ...common(r), channel: r.channel_id, channel_name: r.channel_name, ip: r.ip };
  const billed = Number(r.billed_quota ?? 0);
  if (billed > 0) row.billed_quota = billed;
  return row;
}

/** `other` without the administrators' keys; text that is not a JSON object is passed on unchanged. */
export function userOther(text: string): string {
  if (!text) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return text;
  const obj = parsed as Record<string, unknown>;
  if (!LOG_OTHER_ADMIN_KEYS.some((k) => k in obj)) return text;
  for (const k of LOG_OTHER_ADMIN_KEYS) delete obj[k];
  return JSON.stringify(obj);
}

/** A user's view of their own log: no channel, no admin keys in `other`, the IP only if they chose to see it. */
export function toUserLog(r: LogRecord, showIp: boolean): LogRow {
  const row: LogRow = { ...common(r), other: userOther(r.other ?? '') };
  if (showIp) row.ip = r.ip;
  return row;
}
