/**
 * A refusal the client caused or should see; answered as `{success:false, message}`, with `status` where the
 * path keeps it (on /api only 401, 403 and 429 are kept: see refusalStatus).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    public readonly status = 400,
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'not logged in or login expired') => new ApiError(message, 401);
/** The access gate: the caller's role (or missing setup) does not allow the route at all. */
export const forbidden = (message = 'no permission: insufficient privileges') => new ApiError(message, 403);
/** A route's own rule says no (the target's level, a feature turned off, a banned account at sign-in). */
export const refused = (message: string) => new ApiError(message);
export const notFound = (message = 'not found') => new ApiError(message, 404);
export const conflict = (message: string) => new ApiError(message, 409);
