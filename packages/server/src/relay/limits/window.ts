/** Requests and tokens are counted in fixed one-minute windows aligned to the epoch minute. */
export const WINDOW_MS = 60_000;

/** The window a moment falls in: its number (epoch minutes) and when it ends (epoch ms). */
export interface MinuteWindow {
  index: number;
  endsAt: number;
}

export function minuteWindow(now: number): MinuteWindow {
  const index = Math.floor(now / WINDOW_MS);
  return { index, endsAt: (index + 1) * WINDOW_MS };
}

/** Whole seconds until the window ends, at least 1 (a `retry-after` of 0 invites a busy loop). */
export function secondsToReset(w: MinuteWindow, now: number): number {
  return Math.max(1, Math.ceil((w.endsAt - now) / 1000));
}

/** Room left under a limit after `used`, never negative. */
export function remaining(limit: number, used: number): number {
  return Math.max(0, limit - used);
}

/** The check of one level: one more request fits under rpm, `tokens` more fit under tpm (0: no limit). */
export function refusalOf(
  rpm: number,
  tpm: number,
  usedRequests: number,
  usedTokens: number,
  tokens: number,
): 'requests' | 'tokens' | undefined {
  if (rpm > 0 && usedRequests + 1 > rpm) return 'requests';
  if (tpm > 0 && usedTokens + tokens > tpm) return 'tokens';
  return undefined;
}
