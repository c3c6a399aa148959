import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { siteInfoOf } from './service.js';

/** Public pages new-api's console reads: legal texts and the dashboard's uptime groups. */
export function siteInfoRoutes(r: Router): void {
  const tags = ['site'];
  r.add({
    method: 'GET',
    url: '/api/user-agreement',
    level: 'public',
    summary: 'The user agreement (Markdown, HTML or a URL), empty when none is set',
    tags,
    response: z.string(),
    handler: ({ ctx }) => siteInfoOf(ctx).userAgreement(),
  });
  r.add({
    method: 'GET',
    url: '/api/privacy-policy',
    level: 'public',
    summary: 'The privacy policy (Markdown, HTML or a URL), empty when none is set',
    tags,
    response: z.string(),
    handler: ({ ctx }) => siteInfoOf(ctx).privacyPolicy(),
  });
  r.add({
    method: 'GET',
    url: '/api/uptime/status',
    level: 'public',
    summary: 'The configured Uptime Kuma groups by category name (monitors are not polled: always empty); [] when none',
    tags,
    response: z.array(z.object({ categoryName: z.string(), monitors: z.array(z.unknown()) })),
    handler: ({ ctx }) => siteInfoOf(ctx).uptimeGroups(),
  });
}
