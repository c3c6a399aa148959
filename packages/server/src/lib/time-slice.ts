import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Splits a long synchronous job (the writer's SQLite batch) into slices of about `budgetMs`: the job asks `due()`
 * between its steps, and once a slice has run its budget the event loop gets a turn (its I/O polled, requests
 * answered) before the next step. A step longer than the budget still runs whole.
 */
export class TimeSlicer {
  private sliceStart = performance.now();

  constructor(private readonly budgetMs: number) {}

  /** Waits for the event loop's next turn when this slice has run its budget; otherwise resolves at once. */
  due(): Promise<void> | undefined {
    if (performance.now() - this.sliceStart < this.budgetMs) return undefined;
    return nextTurn().then(() => {
      this.sliceStart = performance.now();
    });
  }
}
