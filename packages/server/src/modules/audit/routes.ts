import { auditQuery, auditRow, paged, type AuditOutcome, type AuditRow } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { readPage } from '../../http/paging.js';
import type { AuditRecord } from './store.js';
import { auditStoreOf } from './trail.js';

/** A stored row as sent (PostgreSQL and MySQL may return bigint columns as text). */
function toAuditRow(r: AuditRecord): AuditRow {
  return {
    id: Number(r.id),
    created_at: Number(r.created_at),
    actor_id: Number(r.actor_id),
    actor_name: r.actor_name,
    actor_role: Number(r.actor_role),
    action: r.action,
    target_type: r.target_type,
    target_id: r.target_id,
    outcome: r.outcome as AuditOutcome,
    ip: r.ip,
    user_agent: r.user_agent,
    detail: r.detail ?? '',
  };
}

/** The administrators' audit log, readable by root only. */
export function auditRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/audit/',
    level: 'root',
    summary: 'Administrators\' actions and refused attempts, newest first, with filters (actor name or id, action, target, outcome, created_at range inclusive)',
    tags: ['audit'],
    query: auditQuery,
    response: paged(auditRow),
    handler: ({ ctx, query }) => readPage(query, (w) => auditStoreOf(ctx).page(query, w), toAuditRow),
  });
}
