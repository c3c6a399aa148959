import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { usableGroups } from './usable.js';

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
    response: z.record(z.string(), z.object({ desc: z.string(), ratio: z.number() })),
    handler: ({ ctx, user }) => {
      const ratios = ctx.options.json<Record<string, number>>('GroupRatio');
      const usable = usableGroups(ctx.options, user!.group);
      const out: Record<string, { desc: string; ratio: number }> = {};
      for (const [name, desc] of Object.entries(usable)) out[name] = { desc, ratio: ratios[name] ?? 1 };
      return out;
    },
  });
}
