import type { AuditFilter, AuditOutcome, AuditRow } from '@tollway/shared';
import { readPage, type Page, type PageQuery } from '../../db/paging.js';
import { perContext } from '../../per-context.js';
import type { AuditRecord, AuditStore } from './store.js';
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

/** Reading the administrators' audit log (the trail writes it). */
export class AuditService {
  constructor(private readonly store: AuditStore) {}

  /** Newest first, with the filters of the query. */
  page(q: PageQuery & Partial<AuditFilter>): Promise<Page<AuditRow>> {
    return readPage(q, (w) => this.store.page(q, w), toAuditRow);
  }
}

export const auditOf = perContext((ctx) => new AuditService(auditStoreOf(ctx)));
