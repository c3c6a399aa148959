import type { OptionsService } from '../../core/options/service.js';
import { perContext } from '../../per-context.js';

/** One Uptime Kuma status page as new-api's dashboard lists it. */
export interface UptimeGroup {
  categoryName: string;
  monitors: { name: string; uptime: number; status: number; group?: string }[];
}

/** Public site texts and the dashboard's monitor groups, read from new-api's option keys. */
export class SiteInfoService {
  constructor(private readonly options: OptionsService) {}

  userAgreement(): string {
    return this.options.get('legal.user_agreement');
  }

  privacyPolicy(): string {
    return this.options.get('legal.privacy_policy');
  }

  /**
   * The configured groups, each with its category name and no monitors: the gateway does not poll Uptime Kuma
   * (that would make a public route fetch administrator-given URLs).
   */
  uptimeGroups(): UptimeGroup[] {
    const parsed = this.options.json<unknown>('console_setting.uptime_kuma_groups');
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((g): g is { categoryName: unknown } => typeof g === 'object' && g !== null)
      .map((g) => ({ categoryName: typeof g.categoryName === 'string' ? g.categoryName : '', monitors: [] }));
  }
}

export const siteInfoOf = perContext((ctx) => new SiteInfoService(ctx.options));
