/**
 * Set once POST /api/setup succeeds in this tab, so the status guard lets the app through
 * before the refetched status (setup: true) arrives.
 */
let completed = false;

export function markSetupComplete(): void {
  completed = true;
}

export function setupJustCompleted(): boolean {
  return completed;
}
