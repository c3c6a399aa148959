import { ErrorCode, type ErrorParams } from '@tollway/shared';

/** A refusal's stable code and the values its text needs, answered beside the English message. */
export interface RefusalCode {
  code?: ErrorCode;
  params?: ErrorParams;
}

/**
 * A refusal the client caused or should see; answered as `{success:false, message, code?, params?}`, with
 * `status` where the path keeps it (on /api only the gate's 401, 403 and 429: see refusalStatus).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    public readonly status = 400,
    /** False for a route's own rule: on /api it is answered 200 even with a 403 status. */
    public readonly gate = true,
    public readonly detail: RefusalCode = {},
  ) {
    super(message);
  }
}

/** A refusal (400) with its stable code: the console shows its own text for the code, else the message. */
export const coded = (code: ErrorCode, message: string, params?: ErrorParams, status = 400) =>
  new ApiError(message, status, true, { code, params });

export const unauthorized = (message = 'not logged in or login expired', code: ErrorCode = ErrorCode.NotLoggedIn) =>
  new ApiError(message, 401, true, { code });
/** The access gate: the caller's role (or missing setup) does not allow the route at all. */
export const forbidden = (message?: string, code?: ErrorCode) =>
  new ApiError(message ?? 'no permission: insufficient privileges', 403, true, {
    code: code ?? (message === undefined ? ErrorCode.NoPermission : undefined),
  });
/** A route's own rule denies the action (the target's level, the author only): a 403 that /api answers 200. */
export const refused = (message: string, code?: ErrorCode, params?: ErrorParams) =>
  new ApiError(message, 403, false, { code, params });
/** Not found: notFound() alone is the plain not_found; a message of its own comes with its code. */
export const notFound = (message?: string, code?: ErrorCode, params?: ErrorParams) =>
  new ApiError(message ?? 'not found', 404, true, {
    code: code ?? (message === undefined ? ErrorCode.NotFound : undefined),
    params,
  });
export const conflict = (message: string, code?: ErrorCode, params?: ErrorParams) =>
  new ApiError(message, 409, true, { code, params });
