import { ErrorCode } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/unique.js';
import { pageWindow, type Page } from '../../db/paging.js';
import { coded, notFound } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { enrichModels, servedModels, type ModelView } from './enrich.js';
import { RuleIndex } from './matching.js';
import type {
  CreateModelBody,
  CreateVendorBody,
  ModelListQuery,
  UpdateModelBody,
  UpdateVendorBody,
  VendorListQuery,
} from './schema.js';
import { RegistryStore, type ModelRow, type NewModel, type VendorRow } from './store.js';

/** What the registry reads: its tables, the routing table and the price options. */
export type RegistryDeps = Pick<AppContext, 'db' | 'options' | 'channelCache'>;

/** A vendor as the lists answer it: its row and how many models name it. */
export type VendorView = Omit<VendorRow, 'deleted_at'> & { model_count: number };

/** Every registry row, for the pricing page (read at most once per SNAPSHOT_MS per node, and after each write). */
export interface RegistrySnapshot {
  models: ModelRow[];
  vendors: VendorRow[];
  index: RuleIndex<ModelRow>;
}
export const SNAPSHOT_MS = 10_000;

export const MSG = {
  modelNotFound: 'model not found',
  vendorNotFound: 'vendor not found',
  modelTaken: (name: string) => `a model named "${name}" already exists`,
  vendorTaken: (name: string) => `a vendor named "${name}" already exists`,
  vendorMissing: (id: number) => `vendor ${id} does not exist`,
} as const;

const modelTaken = (name: string) => coded(ErrorCode.ModelNameTaken, MSG.modelTaken(name), { name }, 409);
const vendorTaken = (name: string) => coded(ErrorCode.VendorNameTaken, MSG.vendorTaken(name), { name }, 409);
const ENABLED = 1;

function vendorView(v: VendorRow, counts: Record<string, number>): VendorView {
  const { deleted_at: _deleted, ...rest } = v;
  return { ...rest, model_count: counts[String(v.id)] ?? 0 };
}

/** The model registry: vendors and models' metadata, and the served models it does not describe. */
export class RegistryService {
  readonly store: RegistryStore;
  private snapshotAt = 0;
  private snapshotRead: Promise<RegistrySnapshot> | undefined;

  constructor(private readonly deps: RegistryDeps) {
    this.store = new RegistryStore(deps.db);
  }

  /** Every row (pricing), cached briefly; a write on this node reads again. */
  snapshot(now = Date.now()): Promise<RegistrySnapshot> {
    if (!this.snapshotRead || now - this.snapshotAt >= SNAPSHOT_MS) {
      this.snapshotAt = now;
      const read = (async () => {
        const [models, vendors] = await Promise.all([this.store.allModels(), this.store.allVendors()]);
        return { models, vendors, index: new RuleIndex(models) };
      })();
      read.catch(() => {
        if (this.snapshotRead === read) this.snapshotRead = undefined;
      });
      this.snapshotRead = read;
    }
    return this.snapshotRead;
  }

  /** Forgets the snapshot after a write. */
  changed(): void {
    this.snapshotRead = undefined;
  }

  // --- vendors ---

  /** The list (oldest first, as new-api's) or, with a keyword, the search (newest first); with model counts. */
  async vendorPage(q: VendorListQuery, search: boolean): Promise<Page<VendorView>> {
    const w = pageWindow(q);
    const [slice, counts] = await Promise.all([
      this.store.vendorPage(w, q.keyword || undefined, search),
      this.store.vendorModelCounts(),
    ]);
    return {
      items: slice.items.map((v) => vendorView(v, counts)),
      page: w.page,
      page_size: q.page_size,
      total: slice.total,
    };
  }

  async vendor(id: number): Promise<VendorView> {
    const v = await this.store.vendorById(id);
    if (!v) throw notFound(MSG.vendorNotFound, ErrorCode.VendorNotFound);
    return vendorView(v, await this.store.vendorModelCounts());
  }

  async createVendor(body: CreateVendorBody): Promise<VendorView> {
    if (await this.store.vendorNameTaken(body.name, 0)) throw vendorTaken(body.name);
    const now = nowSeconds();
    let id: number;
    try {
      id = await this.store.insertVendor({
        name: body.name,
        description: body.description ?? '',
        icon: body.icon ?? '',
        status: body.status ?? ENABLED,
        created_time: now,
        updated_time: now,
        deleted_at: null,
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw vendorTaken(body.name);
      throw err;
    }
    this.changed();
    return this.vendor(id);
  }

  async updateVendor(body: UpdateVendorBody): Promise<VendorView> {
    const current = await this.store.vendorById(body.id);
    if (!current) throw notFound(MSG.vendorNotFound, ErrorCode.VendorNotFound);
    if (body.name !== undefined && (await this.store.vendorNameTaken(body.name, body.id))) throw vendorTaken(body.name);
    const { id, ...changes } = body;
    try {
      await this.store.updateVendor(id, { ...changes, updated_time: nowSeconds() });
    } catch (err) {
      if (isUniqueViolation(err) && body.name !== undefined) throw vendorTaken(body.name);
      throw err;
    }
    this.changed();
    return this.vendor(id);
  }

  /** Deletes a vendor; its models stay, with no vendor. */
  async deleteVendor(id: number): Promise<void> {
    if (!(await this.store.deleteVendor(id))) throw notFound(MSG.vendorNotFound, ErrorCode.VendorNotFound);
    this.changed();
  }

  // --- models ---

  /** A page of entries, newest first, with what the served models add and vendor counts over every entry. */
  async modelPage(q: ModelListQuery): Promise<Page<ModelView> & { vendor_counts: Record<string, number> }> {
    const w = pageWindow(q);
    const flag = (v: string | undefined) => (v === '0' || v === '1' ? Number(v) : undefined);
    const [slice, vendor_counts] = await Promise.all([
      this.store.modelPage(w, {
        keyword: q.keyword || undefined,
        vendor: q.vendor || undefined,
        status: flag(q.status),
        syncOfficial: flag(q.sync_official),
      }),
      this.store.vendorModelCounts(),
    ]);
    return {
      items: enrichModels(this.deps, slice.items),
      total: slice.total,
      page: w.page,
      page_size: q.page_size,
      vendor_counts,
    };
  }

  async model(id: number): Promise<ModelView> {
    const row = await this.store.modelById(id);
    if (!row) throw notFound(MSG.modelNotFound, ErrorCode.RegistryModelNotFound);
    return enrichModels(this.deps, [row])[0]!;
  }

  private async checkVendor(vendorId: number | undefined): Promise<void> {
    if (!vendorId) return;
    if (!(await this.store.vendorById(vendorId)))
      throw coded(ErrorCode.ModelVendorMissing, MSG.vendorMissing(vendorId), { id: vendorId });
  }

  async createModel(body: CreateModelBody): Promise<ModelView> {
    if (await this.store.modelNameTaken(body.model_name, 0)) throw modelTaken(body.model_name);
    await this.checkVendor(body.vendor_id);
    const now = nowSeconds();
    const row: NewModel = {
      description: '',
      icon: '',
      tags: '',
      vendor_id: 0,
      endpoints: '',
      context_length: 0,
      max_output_tokens: 0,
      knowledge_cutoff: '',
      release_date: '',
      parameter_count: '',
      input_modalities: '',
      output_modalities: '',
      status: ENABLED,
      sync_official: 1,
      name_rule: 0,
      ...body,
      created_time: now,
      updated_time: now,
      deleted_at: null,
    };
    let id: number;
    try {
      id = await this.store.insertModel(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw modelTaken(body.model_name);
      throw err;
    }
    this.changed();
    return this.model(id);
  }

  /** Changes the fields present (statusOnly: the status alone). */
  async updateModel(body: UpdateModelBody, statusOnly: boolean): Promise<ModelView> {
    const current = await this.store.modelById(body.id);
    if (!current) throw notFound(MSG.modelNotFound, ErrorCode.RegistryModelNotFound);
    const { id, ...fields } = body;
    const changes = statusOnly ? (fields.status === undefined ? {} : { status: fields.status }) : fields;
    if (!statusOnly) {
      if (fields.model_name !== undefined && (await this.store.modelNameTaken(fields.model_name, id)))
        throw modelTaken(fields.model_name);
      if (fields.vendor_id !== current.vendor_id) await this.checkVendor(fields.vendor_id);
    }
    try {
      await this.store.updateModel(id, { ...changes, updated_time: nowSeconds() });
    } catch (err) {
      if (isUniqueViolation(err) && fields.model_name !== undefined) throw modelTaken(fields.model_name);
      throw err;
    }
    this.changed();
    return this.model(id);
  }

  async deleteModel(id: number): Promise<void> {
    if (!(await this.store.deleteModel(id))) throw notFound(MSG.modelNotFound, ErrorCode.RegistryModelNotFound);
    this.changed();
  }

  /** Models enabled channels serve that no registry entry describes (by name rule), sorted. */
  async missing(): Promise<string[]> {
    const index = new RuleIndex(await this.store.allModels());
    return [...servedModels(this.deps).keys()].filter((name) => !index.find(name)).sort();
  }
}

/** The registry service of an application context. */
export const registryOf = perContext((ctx) => new RegistryService(ctx));
