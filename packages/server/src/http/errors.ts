/** A refusal the client caused or should see; answered as `{success:false, message}` with `status`. */
export class ApiError extends Error {
  constructor(
    message: string,
    public readonly status = 400,
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'not logged in or login expired') => new ApiError(message, 401);
export const forbidden = (message = 'no permission: insufficient privileges') => new ApiError(message, 403);
export const notFound = (message = 'not found') => new ApiError(message, 404);
export const conflict = (message: string) => new ApiError(message, 409);
