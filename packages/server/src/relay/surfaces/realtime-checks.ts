import type { RawData } from 'ws';
import { MAX_BODY_DEPTH, MAX_TOKEN_LIMIT } from '../entry/validate.js';
import { newRequestId } from '../billing/settle.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A realtime output limit: absent, "inf", or an integer from 1 to MAX_TOKEN_LIMIT. */
const badLimit = (v: unknown): boolean =>
  v !== undefined &&
  v !== null &&
  v !== 'inf' &&
  !(typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_TOKEN_LIMIT);

/** Nesting deeper than MAX_BODY_DEPTH (stops at the limit). */
function tooDeep(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (depth >= MAX_BODY_DEPTH) return true;
  for (const k in v) if (tooDeep((v as Json)[k], depth + 1)) return true;
  return false;
}

/** The realtime protocol's error event for a client event that was not passed on. */
const errorEvent = (message: string, param: string | null, eventId: unknown) =>
  JSON.stringify({
    type: 'error',
    event_id: `event_${newRequestId()}`,
    error: {
      type: 'invalid_request_error',
      code: 'invalid_value',
      message,
      param,
      event_id: typeof eventId === 'string' ? eventId : null,
    },
  });

/**
 * The session parameters a client sets (session.update, response.create) checked before they reach the
 * upstream: the error event to answer instead, or undefined to pass the frame on. Other frames (audio
 * appends, most of the traffic) are only scanned for those two type names, never parsed.
 */
export function refusedClientEvent(data: RawData, isBinary: boolean): string | undefined {
  if (isBinary) return undefined;
  const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  if (!buf.includes('"session.update"') && !buf.includes('"response.create"')) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(buf.toString('utf8'));
  } catch {
    return errorEvent('the event is not valid JSON', null, undefined);
  }
  if (!isObject(event)) return errorEvent('an event must be a JSON object', null, undefined);
  if (tooDeep(event, 0))
    return errorEvent(`the event is nested deeper than ${MAX_BODY_DEPTH} levels`, null, event.event_id);
  const [field, params] =
    event.type === 'session.update'
      ? ['session', event.session]
      : event.type === 'response.create'
        ? ['response', event.response]
        : [undefined, undefined];
  if (!field || params === undefined) return undefined;
  if (!isObject(params)) return errorEvent(`${field} must be an object`, field, event.event_id);
  for (const name of ['max_response_output_tokens', 'max_output_tokens']) {
    if (badLimit(params[name]))
      return errorEvent(
        `${field}.${name} must be "inf" or an integer from 1 to ${MAX_TOKEN_LIMIT}`,
        `${field}.${name}`,
        event.event_id,
      );
  }
  const temperature = params.temperature;
  if (
    temperature !== undefined &&
    temperature !== null &&
    !(typeof temperature === 'number' && Number.isFinite(temperature))
  )
    return errorEvent(`${field}.temperature must be a number`, `${field}.temperature`, event.event_id);
  return undefined;
}
