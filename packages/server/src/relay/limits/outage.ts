/** How often a limiter whose store cannot be reached says so. */
export const OUTAGE_WARN_MS = 60_000;

/** When each limiter last warned, by its warning (a fixed set of texts, never caller input). */
const lastWarned = new Map<string, number>();

/**
 * A limiter whose store (Redis) fails lets the call through unlimited: a limiter never takes the gateway down. Warns
 * `message` at most once every OUTAGE_WARN_MS per limiter.
 */
export function passDuringOutage(
  log: { warn(obj: object, msg: string): void },
  err: unknown,
  now: number,
  message: string,
): void {
  const last = lastWarned.get(message);
  if (last !== undefined && now - last < OUTAGE_WARN_MS) return;
  lastWarned.set(message, now);
  log.warn({ err }, message);
}
