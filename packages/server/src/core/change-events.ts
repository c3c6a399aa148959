/**
 * Listeners told when a record changed, registered at start-up: a module emits, and whoever keeps copies
 * (the relay's caches and balances) subscribes, so the module needs no import of them.
 */
export class ChangeEvents<Args extends unknown[]> {
  private readonly listeners: ((...args: Args) => void | Promise<void>)[] = [];

  on(listener: (...args: Args) => void | Promise<void>): void {
    this.listeners.push(listener);
  }

  emit(...args: Args): void {
    for (const listener of this.listeners) void listener(...args);
  }

  /** Tells every listener and resolves once each has taken the change in (a listener's failure is its own). */
  async emitAndWait(...args: Args): Promise<void> {
    await Promise.all(this.listeners.map(async (listener) => listener(...args)));
  }
}

/** A token was created, changed or deleted (its key and id). */
export type TokenChanges = ChangeEvents<[key: string, id: number]>;

/** A subscription's quota changed outside the relay (a period reset): its id (user_subscriptions.id). */
export type PlanChanges = ChangeEvents<[subscriptionId: number]>;
