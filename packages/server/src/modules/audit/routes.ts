import { auditQuery, auditRow, paged } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { auditOf } from './service.js';

/** The administrators' audit log, readable by root only. */
export function auditRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/audit/',
    level: 'root',
    summary:
      "Administrators' actions and refused attempts, newest first, with filters (actor name or id, action, target, outcome, created_at range inclusive)",
    tags: ['audit'],
    query: auditQuery,
    response: paged(auditRow),
    handler: ({ ctx, query }) => auditOf(ctx).page(query),
  });
}
