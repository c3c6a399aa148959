import { lazy } from 'react';

/** The 404 page, loaded when shown (antd's Result and its illustrations stay out of the entry). */
export const NotFound = lazy(() => import('./StatusPageView').then((m) => ({ default: m.NotFoundPage })));
