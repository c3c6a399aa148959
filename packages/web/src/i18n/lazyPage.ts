import { lazy, type ComponentType } from 'react';
import { loadTexts } from './index';

/**
 * A route's page loaded with its texts: the chunk and the namespaces arrive together, then the page renders.
 * `preload()` starts both early (the page the browser opened, before GET /api/status has answered).
 */
export function lazyPage(load: () => Promise<{ default: ComponentType }>, ...namespaces: string[]) {
  let pending: Promise<{ default: ComponentType }> | undefined;
  const start = () => (pending ??= Promise.all([load(), loadTexts(namespaces)]).then(([page]) => page));
  return Object.assign(lazy(start), { preload: start });
}
