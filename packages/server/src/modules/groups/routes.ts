import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { identify } from '../auth/guard.js';
import { usableGroups } from './usable.js';

const groupsAnswer = z.record(z.string(), z.object({ desc: z.string(), ratio: z.number() }));

/** Groups open to a user of `group` (none: the UserUsableGroups alone), with description and ratio. */
function groupsWithRatios(ctx: AppContext, group: string | undefined): z.infer<typeof groupsAnswer> {
  const ratios = ctx.options.json<Record<string, number>>('GroupRatio');
  const usable =
    group === undefined
      ? ctx.options.json<Record<string, string>>('UserUsableGroups')
      : usableGroups(ctx.options, group);
  const out: z.infer<typeof groupsAnswer> = {};
  for (const [name, desc] of Object.entries(usable)) out[name] = { desc, ratio: ratios[name] ?? 1 };
  return out;
}

/** Groups come from the GroupRatio and UserUsableGroups options. */
export function groupRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/group/',
    level: 'admin',
    summary: 'All group names (keys of GroupRatio)',
    tags: ['groups'],
    response: z.array(z.string()),
    handler: ({ ctx }) => Object.keys(ctx.options.json<Record<string, number>>('GroupRatio')),
  });
  r.add({
    method: 'GET',
    url: '/api/user/self/groups',
    level: 'user',
    summary: 'Groups open to the caller with description and ratio',
    tags: ['groups'],
    response: groupsAnswer,
    handler: ({ ctx, user }) => groupsWithRatios(ctx, user!.group),
  });
  r.add({
    method: 'GET',
    url: '/api/user/groups',
    level: 'public',
    summary:
      'Groups open to the signed-in caller, or without a session those open to every user (UserUsableGroups), with description and ratio',
    tags: ['groups'],
    response: groupsAnswer,
    handler: async ({ ctx, req }) => groupsWithRatios(ctx, (await identify(req, ctx))?.group),
  });
}
