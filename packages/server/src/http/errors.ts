/**
 * A refusal the client caused or should see; answered as `{success:false, message}`, with `status` where the
 * path keeps it (on /api only the gate's 401, 403 and 429: see refusalStatus).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    public readonly status = 400,
    /** False for a route's own rule: on /api it is answered 200 even with a 403 status. */
    public readonly gate = true,
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'not logged in or login expired') => new ApiError(message, 401);
/** The access gate: the caller's role (or missing setup) does not allow the route at all. */
export const forbidden = (message = 'no permission: insufficient privileges') => new ApiError(message, 403);
/** A route's own rule denies the action (the target's level, the author only): a 403 that /api answers 200. */
export const refused = (message: string) => new ApiError(message, 403, false);
export const notFound = (message = 'not found') => new ApiError(message, 404);
export const conflict = (message: string) => new ApiError(message, 409);
