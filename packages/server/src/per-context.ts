import type { AppContext } from './context.js';

/** A lazily built service per application context (one per running app; tests run several side by side). */
export function perContext<T>(make: (ctx: AppContext) => T): (ctx: AppContext) => T {
  const made = new WeakMap<AppContext, T>();
  return (ctx) => {
    let s = made.get(ctx);
    if (s === undefined) made.set(ctx, (s = make(ctx)));
    return s;
  };
}
