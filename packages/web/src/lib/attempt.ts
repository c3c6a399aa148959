import { ApiFailure } from './api';

/** Runs an action whose API failure the API client already toasted; other errors go on. */
export async function attempt(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
  }
}
