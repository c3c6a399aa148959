import type { FastifyRequest } from 'fastify';
import { Role, type AuditOutcome } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import type { AuditActor, AuditedCall, AuditTrail, RouteAudit, RouteDef } from '../../http/route.js';
import { perContext } from '../../per-context.js';
import { nowSeconds } from '../../lib/time.js';
import { identify } from '../auth/guard.js';
import { auditCatalog } from './catalog.js';
import { maskValue } from './mask.js';
import { defaultAction, defaultTarget, defaultTargetId, targetIdText } from './naming.js';
import { AuditStore } from './store.js';

/** Longest detail stored; a longer one keeps only the changed fields' names. */
const MAX_DETAIL = 4000;
const MAX_USER_AGENT = 255;
const MAX_IP = 64;
/** How long a request waits for its audit row; a slower write finishes in the background. */
export const AUDIT_WRITE_WAIT_MS = 1000;

export const auditStoreOf = perContext((ctx) => new AuditStore(ctx.logDb));

function detailOf(def: RouteDef, spec: RouteAudit, call: AuditedCall, extra: Record<string, unknown>): string {
  const fields = maskValue(spec.fields ? spec.fields(call) : call.body);
  const query =
    call.query && typeof call.query === 'object' && Object.keys(call.query).length ? maskValue(call.query) : undefined;
  const detail = {
    route: `${def.method} ${def.url}`,
    ...extra,
    ...(fields !== undefined ? { fields } : {}),
    ...(query !== undefined ? { query } : {}),
  };
  const text = JSON.stringify(detail);
  if (text.length <= MAX_DETAIL) return text;
  const names = fields && typeof fields === 'object' ? Object.keys(fields) : [];
  return JSON.stringify({ route: detail.route, ...extra, field_names: names, truncated: true }).slice(0, MAX_DETAIL);
}

async function write(ctx: AppContext, row: Parameters<AuditStore['insert']>[0]): Promise<void> {
  const done = auditStoreOf(ctx)
    .insert(row)
    .catch((err: unknown) => ctx.log.warn({ err, action: row.action }, 'audit log write failed'));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, AUDIT_WRITE_WAIT_MS)))]);
  clearTimeout(timer);
}

function record(
  ctx: AppContext,
  req: FastifyRequest,
  def: RouteDef,
  spec: RouteAudit,
  actor: AuditActor,
  call: AuditedCall,
  outcome: AuditOutcome,
  extra: Record<string, unknown>,
): Promise<void> {
  let row;
  try {
    row = {
      created_at: nowSeconds(),
      actor_id: actor.id,
      actor_name: actor.username,
      actor_role: actor.role,
      action: (typeof spec.action === 'function' ? spec.action(call) : spec.action) ?? defaultAction(def),
      target_type: spec.target ?? defaultTarget(def.url),
      target_id: targetIdText(spec.targetId ? spec.targetId(call) : defaultTargetId(call)),
      outcome,
      ip: (req.ip ?? '').slice(0, MAX_IP),
      user_agent: String(req.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT),
      detail: detailOf(def, spec, call, extra),
    };
  } catch (err) {
    ctx.log.warn({ err, route: `${def.method} ${def.url}` }, 'audit log entry could not be built');
    return Promise.resolve();
  }
  return write(ctx, row);
}

const isAdministrator = (a: AuditActor | undefined): a is AuditActor => a !== undefined && a.role >= Role.Admin;

/**
 * The audit trail of a route, undefined when it records nothing: successful non-GET calls to admin and root
 * routes (unless the route opts out), routes with an explicit audit entry (sign-in), and administrators'
 * refused (403) calls to root routes and admin writes. Entries are written in the request after the action
 * succeeded; a failed write is logged, never answered.
 */
export function auditTrailFor(def: RouteDef): AuditTrail | undefined {
  const declared = def.audit ?? auditCatalog[`${def.method} ${def.url}`];
  const privileged = def.level === 'admin' || def.level === 'root';
  const recordsSuccess = declared !== false && (declared !== undefined || (privileged && def.method !== 'GET'));
  // Refusals: any call to a root route, writes to admin routes (an admin's refused reads are not actions).
  const recordsDenied = def.level === 'root' || (def.level === 'admin' && def.method !== 'GET');
  if (!recordsSuccess && !recordsDenied) return undefined;
  const spec: RouteAudit = declared || {};
  return {
    async succeeded(ctx, req, reply, user, call) {
      if (!recordsSuccess || (def.raw && reply.statusCode >= 400)) return;
      let actor: AuditActor | undefined = user;
      try {
        actor ??= spec.actor?.(call);
      } catch {
        actor = undefined;
      }
      if (isAdministrator(actor)) await record(ctx, req, def, spec, actor, call, 'ok', {});
    },
    async failed(ctx, req, err, user) {
      if (!recordsDenied || !(err instanceof ApiError) || err.status !== 403) return;
      const actor = user ?? (await identify(req, ctx).catch(() => undefined));
      if (!isAdministrator(actor)) return;
      const call: AuditedCall = { params: req.params, query: req.query, body: req.body, data: undefined };
      await record(ctx, req, def, spec, actor, call, 'denied', { status: 403, message: err.message });
    },
  };
}
