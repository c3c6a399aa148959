import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';

/** One row of GET /api/pricing; quota_type is a QuotaType (by ratio, or a fixed price per call). */
export interface PricingModel {
  model_name: string;
  quota_type: number;
  model_ratio: number;
  completion_ratio: number;
  /** Dollars per call (fixed-price rows). */
  model_price: number;
  /** Groups in which some enabled channel serves the model. */
  enable_groups: string[];
}

export interface PricingData {
  models: PricingModel[];
  /** Ratio of each group the caller may use. */
  groupRatio: Record<string, number>;
  /** Groups the caller may use, with their descriptions. */
  usableGroup: Record<string, string>;
}

/**
 * GET /api/pricing: the envelope carries data plus group_ratio and usable_group beside it. Works logged out
 * (default group); logged in, the server answers for the caller's group.
 */
export function usePricing(userId: number | undefined) {
  return useQuery({
    queryKey: ['pricing', userId ?? 0],
    queryFn: async (): Promise<PricingData> => {
      const env = (await api<PricingModel[]>('GET', '/api/pricing')) as unknown as {
        data?: PricingModel[];
        group_ratio?: Record<string, number>;
        usable_group?: Record<string, string>;
      };
      return {
        models: Array.isArray(env.data)
          ? env.data.map((m) => ({ ...m, enable_groups: Array.isArray(m.enable_groups) ? m.enable_groups : [] }))
          : [],
        groupRatio: env.group_ratio ?? {},
        usableGroup: env.usable_group ?? {},
      };
    },
    staleTime: 60_000,
  });
}
