// Sync with the upstream catalog, as new-api's model management does it: the preview lists the served models
// the registry lacks and the catalog has, and where entries that follow the catalog (sync_official) differ from
// it; applying creates those models (and their vendors) and overwrites the fields the administrator picked.
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/unique.js';
import { nowSeconds } from '../../lib/time.js';
import { catalogUrls, EXTRA_INT, EXTRA_TEXT, fetchCatalog, type Catalog, type ExtraField } from './catalog.js';
import type { OverwriteField, SyncBody } from './schema.js';
import { registryOf } from './service.js';
import type { ModelChanges, ModelRow } from './store.js';

export type SyncDeps = AppContext;

export interface ConflictField {
  field: OverwriteField;
  local: string | number;
  upstream: string | number;
}

/** new-api's status choice: the catalog's when set, else the local one, else enabled (0 never disables). */
const chooseStatus = (upstream: number, local: number): number => (upstream !== 0 ? 1 : local !== 0 ? local : 1);
const ENABLED = 1;

const EXTRA_FIELDS: ExtraField[] = [...EXTRA_INT, ...(Object.keys(EXTRA_TEXT) as (keyof typeof EXTRA_TEXT)[])];

function conflictsOf(local: ModelRow, localVendor: string, catalog: Catalog): ConflictField[] {
  const up = catalog.models.get(local.model_name)!;
  const out: ConflictField[] = [];
  const text = (field: OverwriteField, a: string, b: string) => {
    if (a.trim() !== b.trim()) out.push({ field, local: a, upstream: b });
  };
  text('description', local.description, up.description);
  text('icon', local.icon, up.icon);
  text('tags', local.tags, up.tags);
  text('vendor', localVendor, up.vendor_name);
  if (local.name_rule !== up.name_rule)
    out.push({ field: 'name_rule', local: local.name_rule, upstream: up.name_rule });
  if (local.status !== chooseStatus(up.status, local.status))
    out.push({ field: 'status', local: local.status, upstream: up.status });
  for (const field of EXTRA_FIELDS) {
    const theirs = up.extras[field];
    if (theirs === undefined) continue;
    const mine = local[field];
    if (typeof theirs === 'string' ? String(mine).trim() !== theirs.trim() : mine !== theirs)
      out.push({ field, local: mine, upstream: theirs });
  }
  return out;
}

/** Registry entries the catalog also lists and that follow it (sync_official not 0). */
async function followers(deps: SyncDeps, catalog: Catalog): Promise<ModelRow[]> {
  const all = await registryOf(deps).store.allModels();
  return all.filter((m) => m.sync_official !== 0 && catalog.models.has(m.model_name));
}

/** GET /api/models/sync_upstream/preview: what a sync would create and where the registry differs. */
export async function previewSync(deps: SyncDeps, locale: string) {
  const catalog = await fetchCatalog(deps, locale);
  const registry = registryOf(deps);
  const missing = (await registry.missing()).filter((name) => catalog.models.has(name));
  const vendors = new Map((await registry.store.allVendors()).map((v) => [v.id, v.name]));
  const conflicts = (await followers(deps, catalog))
    .map((m) => ({ model_name: m.model_name, fields: conflictsOf(m, vendors.get(m.vendor_id) ?? '', catalog) }))
    .filter((c) => c.fields.length > 0);
  return { missing, conflicts, source: catalog.source };
}

/** Finds a vendor by name or creates it from the catalog's entry; counts the ones created. */
class VendorResolver {
  private readonly ids = new Map<string, number>();
  created = 0;

  constructor(
    private readonly deps: SyncDeps,
    private readonly catalog: Catalog,
  ) {}

  async idOf(name: string): Promise<number> {
    if (!name) return 0;
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    const store = registryOf(this.deps).store;
    let id = (await store.vendorByName(name))?.id;
    if (id === undefined) {
      const up = this.catalog.vendors.get(name);
      const now = nowSeconds();
      try {
        id = await store.insertVendor({
          name,
          description: up?.description ?? '',
          icon: up?.icon ?? '',
          status: up && up.status === 0 ? 0 : ENABLED,
          created_time: now,
          updated_time: now,
          deleted_at: null,
        });
        this.created++;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        id = (await store.vendorByName(name))?.id ?? 0;
      }
    }
    this.ids.set(name, id);
    return id;
  }
}

/** The changes an overwrite of `fields` makes to a local entry. */
async function overwriteChanges(
  local: ModelRow,
  fields: readonly OverwriteField[],
  catalog: Catalog,
  vendors: VendorResolver,
): Promise<ModelChanges> {
  const up = catalog.models.get(local.model_name)!;
  const changes: ModelChanges = {};
  for (const field of new Set(fields)) {
    if (field === 'description' || field === 'icon' || field === 'tags') changes[field] = up[field];
    else if (field === 'vendor') changes.vendor_id = await vendors.idOf(up.vendor_name);
    else if (field === 'name_rule') changes.name_rule = up.name_rule;
    else if (field === 'status') changes.status = chooseStatus(up.status, local.status);
    else if (up.extras[field] !== undefined) (changes as Record<string, unknown>)[field] = up.extras[field];
  }
  return changes;
}

/** POST /api/models/sync_upstream: creates the missing models the catalog has, then the chosen overwrites. */
export async function applySync(deps: SyncDeps, body: SyncBody) {
  const locale = body.locale ?? '';
  const overwrite = body.overwrite ?? [];
  const registry = registryOf(deps);
  const missing = await registry.missing();
  const result = {
    created_models: 0,
    created_vendors: 0,
    updated_models: 0,
    skipped_models: [] as string[],
    created_list: [] as string[],
    updated_list: [] as string[],
    source: { locale, ...catalogUrls(deps.config.syncUpstreamBase, locale) },
  };
  if (missing.length === 0 && overwrite.length === 0) return result;
  const catalog = await fetchCatalog(deps, locale);
  const vendors = new VendorResolver(deps, catalog);
  const now = nowSeconds();
  for (const name of missing) {
    const up = catalog.models.get(name);
    if (!up) {
      result.skipped_models.push(name);
      continue;
    }
    try {
      await registry.store.insertModel({
        model_name: name,
        description: up.description,
        icon: up.icon,
        tags: up.tags,
        vendor_id: await vendors.idOf(up.vendor_name),
        endpoints: '',
        context_length: Number(up.extras.context_length ?? 0),
        max_output_tokens: Number(up.extras.max_output_tokens ?? 0),
        knowledge_cutoff: String(up.extras.knowledge_cutoff ?? ''),
        release_date: String(up.extras.release_date ?? ''),
        parameter_count: String(up.extras.parameter_count ?? ''),
        input_modalities: String(up.extras.input_modalities ?? ''),
        output_modalities: String(up.extras.output_modalities ?? ''),
        status: chooseStatus(up.status, ENABLED),
        sync_official: 1,
        name_rule: up.name_rule,
        created_time: now,
        updated_time: now,
        deleted_at: null,
      });
      result.created_models++;
      result.created_list.push(name);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      result.skipped_models.push(name);
    }
  }
  if (overwrite.length > 0) {
    const locals = new Map((await followers(deps, catalog)).map((m) => [m.model_name, m]));
    for (const { model_name, fields } of overwrite) {
      const local = locals.get(model_name);
      if (!local) continue;
      const changes = await overwriteChanges(local, fields, catalog, vendors);
      if (Object.keys(changes).length === 0) continue;
      await registry.store.updateModel(local.id, { ...changes, updated_time: now });
      result.updated_models++;
      result.updated_list.push(model_name);
    }
  }
  result.created_vendors = vendors.created;
  registry.changed();
  return result;
}
