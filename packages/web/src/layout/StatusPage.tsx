import { lazy } from 'react';

/** A full-page status answer (403, 404), loaded when shown: antd's Result and its illustrations stay out of the entry. */
export const StatusPage = lazy(() => import('./StatusPageView').then((m) => ({ default: m.StatusPage })));
