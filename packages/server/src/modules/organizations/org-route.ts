import type { OrgCapability } from '@tollway/shared';
import type { z } from 'zod';
import type { HandlerArgs, RouteDef, Router } from '../../http/route.js';
import { requireOrg, type OrgAccess } from './access.js';

/** What an /api/org/:id route needs of its caller: a capability, and whether the call changes the organization. */
export interface OrgNeed {
  need: OrgCapability;
  /** A change: refused on a disabled organization (except to system admins). */
  write?: boolean;
}

/**
 * An /api/org/:id route as declared: its capability stated once, beside the route, instead of a requireOrg call in
 * each handler. The handler receives the caller's access (the organization, their role), already checked.
 */
export interface OrgRouteDef<QS extends z.ZodType, BS extends z.ZodType, PS extends z.ZodType<{ id: number }>>
  extends Omit<RouteDef<QS, BS, PS>, 'level' | 'handler'>, OrgNeed {
  /** Who may call it at all (default: any signed-in user; the organization's rules decide the rest). */
  level?: RouteDef['level'];
  handler(args: HandlerArgs<z.infer<QS>, z.infer<BS>, z.infer<PS>> & { access: OrgAccess }): unknown;
}

const declared = new WeakMap<object, OrgNeed>();

/** The need an organization route declared (undefined for any other route): the permission sweep reads it. */
export const orgNeedOf = (route: object): OrgNeed | undefined => declared.get(route);

/** Registers an organization route: a signed-in user's, passed through requireOrg with the route's need. */
export function addOrgRoute<QS extends z.ZodType, BS extends z.ZodType, PS extends z.ZodType<{ id: number }>>(
  r: Router,
  def: OrgRouteDef<QS, BS, PS>,
): void {
  const { need, write, handler, level = 'user', ...route } = def;
  const gate = write ? { write } : {};
  const registered: RouteDef<QS, BS, PS> = {
    ...route,
    level,
    handler: async (args) =>
      handler({ ...args, access: await requireOrg(args.ctx.db, args.user!, args.params.id, need, gate) }),
  };
  declared.set(registered, { need, ...gate });
  r.add(registered);
}
