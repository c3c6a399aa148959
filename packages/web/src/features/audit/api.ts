import type { AuditRow, Page } from '@tollway/shared';
import { apiGetPage } from '../../lib/api';

/** The filters a root reader can set ('' or 0: none); times are unix seconds, inclusive. */
export interface AuditFilters {
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  outcome: '' | 'ok' | 'denied';
  start_timestamp: number;
  end_timestamp: number;
}

export const EMPTY_FILTERS: AuditFilters = {
  actor: '',
  action: '',
  target_type: '',
  target_id: '',
  outcome: '',
  start_timestamp: 0,
  end_timestamp: 0,
};

export const AUDIT_KEY = ['audit'] as const;

/** GET /api/audit/ (root only), newest first. */
export function fetchAudit(f: AuditFilters, page: number, pageSize: number): Promise<Page<AuditRow>> {
  const params = new URLSearchParams({ p: String(page), page_size: String(pageSize) });
  for (const [k, v] of Object.entries(f)) {
    if (v !== '' && v !== 0) params.set(k, String(v));
  }
  return apiGetPage<AuditRow>(`/api/audit/?${params.toString()}`, page);
}
