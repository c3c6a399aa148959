import { lazy, type ComponentType } from 'react';
import { loadTexts } from './index';

/** A route's page loaded with its texts: the chunk and the namespaces arrive together, then the page renders. */
export function lazyPage(load: () => Promise<{ default: ComponentType }>, ...namespaces: string[]) {
  return lazy(() => Promise.all([load(), loadTexts(namespaces)]).then(([page]) => page));
}
