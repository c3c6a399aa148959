export interface StatusInfo {
  reason: string;
  time: number;
  /** The last test's failure ('' when it passed or none ran). */
  testError: string;
}

/** other_info carries {status_reason, status_time} for an automatically disabled channel, test_error after a failed test. */
export function parseOtherInfo(text: string | undefined): StatusInfo {
  try {
    const v = JSON.parse(text || '{}') as { status_reason?: unknown; status_time?: unknown; test_error?: unknown };
    return {
      reason: typeof v.status_reason === 'string' ? v.status_reason : '',
      time: Number(v.status_time) || 0,
      testError: typeof v.test_error === 'string' ? v.test_error : '',
    };
  } catch {
    return { reason: '', time: 0, testError: '' };
  }
}

export type SpeedColor = 'default' | 'green' | 'lime' | 'yellow' | 'red';

/** Response-time badge colour: 0 untested, ≤ 1 s green, ≤ 3 s lime, ≤ 5 s yellow, else red. */
export function responseTimeColor(ms: number): SpeedColor {
  if (!ms) return 'default';
  if (ms <= 1000) return 'green';
  if (ms <= 3000) return 'lime';
  if (ms <= 5000) return 'yellow';
  return 'red';
}

export const formatSeconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export const splitList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
