import type { AuditedCall, RouteDef } from '../../http/route.js';

/** Longest target id stored (the column's width). */
export const MAX_TARGET_ID = 191;

const VERB: Record<string, string> = { POST: 'create', PUT: 'update', DELETE: 'delete', GET: 'read' };

/** The url's path words without /api, /admin and parameters: /api/admin/messages/:id → ['messages']. */
function wordsOf(url: string): string[] {
  return url
    .split('/')
    .filter((w) => w && !w.startsWith(':'))
    .filter((w, i) => !(i === 0 && w === 'api'))
    .filter((w, i) => !(i === 0 && w === 'admin'))
    .map((w) => w.replace(/-/g, '_'));
}

/** The resource a url manages, singular: /api/admin/messages → message. */
export function defaultTarget(url: string): string {
  const first = wordsOf(url)[0] ?? 'system';
  return first.endsWith('s') && !first.endsWith('ss') ? first.slice(0, -1) : first;
}

/**
 * '<resource>.<verb>' from the declaration: POST/PUT/DELETE on the resource itself are create/update/delete;
 * a sub-path names the action (POST /api/channel/fix → channel.fix, DELETE /api/channel/disabled →
 * channel.delete_disabled).
 */
export function defaultAction(def: Pick<RouteDef, 'method' | 'url'>): string {
  const rest = wordsOf(def.url).slice(1).join('_');
  const verb = VERB[def.method] ?? def.method.toLowerCase();
  if (!rest) return `${defaultTarget(def.url)}.${verb}`;
  if (def.method === 'DELETE' && !rest.startsWith('delete')) return `${defaultTarget(def.url)}.delete_${rest}`;
  return `${defaultTarget(def.url)}.${rest}`;
}

const idText = (v: unknown): string | undefined => {
  if (typeof v === 'number' || (typeof v === 'string' && v !== '')) return String(v);
  if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'number' || typeof x === 'string'))
    return v.join(',');
  return undefined;
};
const field = (o: unknown, k: string): unknown =>
  o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[k] : undefined;

/** The target's id: path id, body id, the created row's id or ids, the body's id list. */
export function defaultTargetId(c: AuditedCall): string | undefined {
  return (
    idText(field(c.params, 'id')) ??
    idText(field(c.body, 'id')) ??
    idText(field(c.data, 'id')) ??
    idText(field(c.data, 'ids')) ??
    idText(field(c.body, 'ids'))
  );
}

/** A target id as stored: text, cut to the column. */
export function targetIdText(v: string | number | undefined): string {
  const s = v === undefined ? '' : String(v);
  return s.length > MAX_TARGET_ID ? `${s.slice(0, MAX_TARGET_ID - 1)}…` : s;
}
