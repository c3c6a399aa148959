// What the model registry adds to a pricing row: the entry describing the model (by name rule), its vendor, and
// the endpoints it names; a model with no entry keeps the vendor guessed from its name or channel.
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import type { RegistrySnapshot } from '../model-registry/service.js';
import type { ModelRow, VendorRow } from '../model-registry/store.js';
import { vendorOf } from './vendors.js';

/** A vendor of the pricing answer (icon: a @lobehub/icons name). */
export interface PricingVendor {
  id: number;
  name: string;
  description: string;
  icon: string;
}

export interface RowMeta {
  /** The registry entry disables the model: it is left off the page. */
  hidden: boolean;
  description: string;
  icon: string;
  tags: string;
  vendor: PricingVendor | undefined;
  /** Endpoint type → path and method, when the entry names its endpoints. */
  endpoints: Record<string, { path: string; method: string }> | undefined;
}

const ENABLED = 1;
const DEFAULT_METHOD = 'POST';

/** The entry's endpoints text (new-api's: type → path, or type → {path, method}); undefined when it names none. */
export function entryEndpoints(text: string): RowMeta['endpoints'] {
  if (text.trim() === '') return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const out: Record<string, { path: string; method: string }> = {};
  for (const [type, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v === 'string') out[type] = { path: v, method: DEFAULT_METHOD };
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as { path?: unknown; method?: unknown };
      out[type] = {
        path: typeof o.path === 'string' ? o.path : '',
        method: typeof o.method === 'string' ? o.method.toUpperCase() : DEFAULT_METHOD,
      };
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const asPricingVendor = (v: VendorRow): PricingVendor => ({
  id: v.id,
  name: v.name,
  description: v.description,
  icon: v.icon,
});

/**
 * The metadata of one served model. With a registry entry: its description, icon, tags, vendor and endpoints.
 * Without: the vendor guessed from the model's family or first channel, which is the registry's vendor of that
 * name when there is one, else a vendor of the page alone with a negative id (never a registry id).
 */
export function registryMeta(snapshot: RegistrySnapshot): (model: string, serving: CachedChannel[]) => RowMeta {
  const byId = new Map(snapshot.vendors.map((v) => [v.id, v]));
  const byName = new Map(snapshot.vendors.map((v) => [v.name.toLowerCase(), v]));
  return (model, serving) => {
    const entry: ModelRow | undefined = snapshot.index.find(model);
    if (entry) {
      const vendor = byId.get(entry.vendor_id);
      return {
        hidden: entry.status !== ENABLED,
        description: entry.description,
        icon: entry.icon,
        tags: entry.tags,
        vendor: vendor && asPricingVendor(vendor),
        endpoints: entryEndpoints(entry.endpoints),
      };
    }
    const guessed = vendorOf(model, serving);
    const known = guessed && byName.get(guessed.name.toLowerCase());
    return {
      hidden: false,
      description: '',
      icon: '',
      tags: '',
      vendor: known
        ? asPricingVendor(known)
        : guessed && { id: -guessed.id, name: guessed.name, description: '', icon: guessed.icon },
      endpoints: undefined,
    };
  };
}
