import { lazy } from 'react';

/** The 403 page, loaded when shown (antd's Result and its illustrations stay out of the entry). */
export const Forbidden = lazy(() => import('./StatusPageView').then((m) => ({ default: m.ForbiddenPage })));
