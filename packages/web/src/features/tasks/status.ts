/** Tag colours and label keys of task actions, submit codes and states. */

export const DRAWING_ACTIONS = [
  'IMAGINE',
  'UPSCALE',
  'VARIATION',
  'HIGH_VARIATION',
  'LOW_VARIATION',
  'PAN',
  'DESCRIBE',
  'BLEND',
  'UPLOAD',
  'SHORTEN',
  'REROLL',
  'INPAINT',
  'ZOOM',
  'CUSTOM_ZOOM',
  'MODAL',
  'SWAP_FACE',
  'VIDEO',
  'EDITS',
] as const;

const ACTION_COLORS: Record<string, string> = {
  IMAGINE: 'blue',
  UPSCALE: 'orange',
  VARIATION: 'purple',
  HIGH_VARIATION: 'purple',
  LOW_VARIATION: 'purple',
  PAN: 'cyan',
  DESCRIBE: 'gold',
  BLEND: 'lime',
  UPLOAD: 'geekblue',
  SHORTEN: 'magenta',
  REROLL: 'volcano',
  INPAINT: 'purple',
  ZOOM: 'cyan',
  CUSTOM_ZOOM: 'cyan',
  MODAL: 'green',
  SWAP_FACE: 'green',
  VIDEO: 'red',
  EDITS: 'purple',
  MUSIC: 'geekblue',
  LYRICS: 'pink',
};

export const actionColor = (action: string) => ACTION_COLORS[action] ?? 'default';

/** Submit result codes of drawing tasks: 1 submitted, 21 waiting, 22 duplicate, 0 not submitted. */
export const SUBMIT_CODES: Record<number, { key: string; color: string }> = {
  1: { key: 'submitted', color: 'green' },
  21: { key: 'waiting', color: 'lime' },
  22: { key: 'duplicate', color: 'orange' },
  0: { key: 'notSubmitted', color: 'gold' },
};

/** Task states: drawing tasks use the first six; music tasks add QUEUED, UNKNOWN and '' (submitting). */
const STATES: Record<string, { key: string; color: string }> = {
  SUCCESS: { key: 'success', color: 'green' },
  NOT_START: { key: 'notStart', color: 'default' },
  SUBMITTED: { key: 'submitted', color: 'gold' },
  QUEUED: { key: 'queued', color: 'orange' },
  IN_PROGRESS: { key: 'inProgress', color: 'blue' },
  FAILURE: { key: 'failure', color: 'red' },
  MODAL: { key: 'modal', color: 'purple' },
  UNKNOWN: { key: 'unknown', color: 'default' },
  '': { key: 'submitting', color: 'default' },
};

export const stateOf = (status: string) => STATES[status] ?? { key: 'unknown', color: 'default' };

/** States a task leaves by itself: the page refreshes while a shown task is in one. */
const RUNNING = new Set(['', 'NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS']);
export const isRunning = (status: string) => RUNNING.has(status);

/** How the progress bar looks in a state: red on failure, green on success, animated while running. */
export const progressStatus = (status: string) =>
  status === 'FAILURE' ? 'exception' : status === 'SUCCESS' ? 'success' : isRunning(status) ? 'active' : 'normal';

/** Seconds from submit to finish, or undefined while unfinished. */
export const durationOf = (r: { submit_time: number; finish_time: number }) =>
  r.finish_time > 0 && r.submit_time > 0 ? Math.max(0, r.finish_time - r.submit_time) : undefined;

/** A drawing that took over 60 s is shown red. */
export const durationColor = (seconds: number) => (seconds > 60 ? 'red' : 'green');

/** A music or video task that took a minute or more is shown red (new-api's task log rule). */
export const taskDurationColor = (seconds: number) => (seconds >= 60 ? 'red' : 'green');

/** "40%" → 40 (progress is text upstream); NaN-safe. */
export const progressPercent = (progress: string) => {
  const n = Number.parseFloat(progress);
  return Number.isFinite(n) ? Math.min(100, Math.max(0, n)) : 0;
};
