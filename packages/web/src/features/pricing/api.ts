import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';

/**
 * One row of GET /api/pricing; quota_type is a QuotaType (by ratio, or a fixed price per call). The registry fields
 * (description, icon, tags, vendor_id, supported_endpoint_types) are optional: older servers send none.
 */
export interface PricingModel {
  model_name: string;
  quota_type: number;
  model_ratio: number;
  completion_ratio: number;
  /** Dollars per call (fixed-price rows). */
  model_price: number;
  /** Groups in which some enabled channel serves the model. */
  enable_groups: string[];
  /** From the model's registry entry; empty without one. */
  description?: string;
  /** A @lobehub/icons name from the registry entry (the console does not render it). */
  icon?: string;
  /** Comma-separated tags from the registry entry; empty without one. */
  tags?: string;
  /** An id of the answer's `vendors`; 0: none; negative: guessed from the name, not in the registry. */
  vendor_id?: number;
  /** new-api's endpoint types the model is called through. */
  supported_endpoint_types?: string[];
  /** 'tiered_expr' when a billing expression prices the model (the ratio or price beside it is then unused). */
  billing_mode?: string;
  /** The expression, in dollars per 1M tokens. */
  billing_expr?: string;
}

/** A vendor of the listed models (icon: a @lobehub/icons name, not rendered). */
export interface PricingVendor {
  id: number;
  name: string;
  description: string;
  icon: string;
}

export interface PricingData {
  models: PricingModel[];
  /** Ratio of each group the caller may use. */
  groupRatio: Record<string, number>;
  /** Groups the caller may use, with their descriptions. */
  usableGroup: Record<string, string>;
  /** Vendors of the listed models. */
  vendors: PricingVendor[];
}

/**
 * GET /api/pricing: the envelope carries data plus group_ratio, usable_group and vendors beside it. Works logged out
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
        vendors?: PricingVendor[];
      };
      return {
        models: Array.isArray(env.data)
          ? env.data.map((m) => ({ ...m, enable_groups: Array.isArray(m.enable_groups) ? m.enable_groups : [] }))
          : [],
        groupRatio: env.group_ratio ?? {},
        usableGroup: env.usable_group ?? {},
        vendors: Array.isArray(env.vendors) ? env.vendors : [],
      };
    },
    staleTime: 60_000,
  });
}
