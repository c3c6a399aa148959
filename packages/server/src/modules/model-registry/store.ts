import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { ModelsTable, VendorsTable } from '../../db/schema.js';

export type ModelRow = Selectable<ModelsTable>;
export type NewModel = Insertable<ModelsTable>;
export type ModelChanges = Updateable<ModelsTable>;
export type VendorRow = Selectable<VendorsTable>;
export type NewVendor = Insertable<VendorsTable>;
export type VendorChanges = Updateable<VendorsTable>;

/** Filters of the model list; vendor is an id (digits) or part of a vendor's name. */
export interface ModelFilter {
  keyword?: string;
  vendor?: string;
  status?: number;
  syncOfficial?: number;
}

const DIGITS = /^\d{1,9}$/;

/** The caller's text in the column, ignoring case on every dialect. */
const holds = (column: string, text: string) => likeText(sql`lower(${sql.ref(column)})`, text.toLowerCase());

/** BIGINT columns come back as strings from some drivers; MySQL's long text columns may hold NULL. */
const numbered = <T extends { created_time: unknown; updated_time: unknown; description: string }>(r: T): T => ({
  ...r,
  description: r.description ?? '',
  created_time: Number(r.created_time),
  updated_time: Number(r.updated_time),
});
const modelRow = (r: ModelRow): ModelRow => ({ ...numbered(r), endpoints: r.endpoints ?? '' });

/** SQL of the model registry: vendors and models. */
export class RegistryStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  // --- vendors ---

  async vendorPage(w: RowWindow, keyword: string | undefined, newestFirst: boolean): Promise<Slice<VendorRow>> {
    let base = this.k.selectFrom('vendors');
    if (keyword) base = base.where((eb) => eb.or([holds('name', keyword), holds('description', keyword)]));
    const slice = await selectPage(base, (q) => q.selectAll().orderBy('id', newestFirst ? 'desc' : 'asc'), w);
    return { items: slice.items.map(numbered), total: slice.total };
  }

  async allVendors(): Promise<VendorRow[]> {
    return (await this.k.selectFrom('vendors').selectAll().orderBy('id').execute()).map(numbered);
  }

  async vendorById(id: number): Promise<VendorRow | undefined> {
    const r = await this.k.selectFrom('vendors').selectAll().where('id', '=', id).executeTakeFirst();
    return r && numbered(r);
  }

  async vendorByName(name: string): Promise<VendorRow | undefined> {
    const r = await this.k.selectFrom('vendors').selectAll().where('name', '=', name).executeTakeFirst();
    return r && numbered(r);
  }

  /** True when another vendor (not `exceptId`) has this name. */
  async vendorNameTaken(name: string, exceptId: number): Promise<boolean> {
    const r = await this.k
      .selectFrom('vendors')
      .select('id')
      .where('name', '=', name)
      .where('id', '<>', exceptId)
      .executeTakeFirst();
    return r !== undefined;
  }

  async insertVendor(row: NewVendor): Promise<number> {
    if (this.db.dialect === 'mysql')
      return Number((await this.k.insertInto('vendors').values(row).executeTakeFirstOrThrow()).insertId);
    return (await this.k.insertInto('vendors').values(row).returning('id').executeTakeFirstOrThrow()).id;
  }

  /** Changes the vendor (the caller checked it exists: MySQL counts only rows whose values changed). */
  async updateVendor(id: number, changes: VendorChanges): Promise<void> {
    await this.k.updateTable('vendors').set(changes).where('id', '=', id).execute();
  }

  /** Deletes the vendor; its models keep their metadata with no vendor (0). */
  async deleteVendor(id: number): Promise<boolean> {
    return this.k.transaction().execute(async (trx) => {
      await trx.updateTable('models').set({ vendor_id: 0 }).where('vendor_id', '=', id).execute();
      const res = await trx.deleteFrom('vendors').where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    });
  }

  /** Vendor id → how many models name it (every model, not a page). */
  async vendorModelCounts(): Promise<Record<string, number>> {
    const rows = await this.k
      .selectFrom('models')
      .select(['vendor_id', sql<number | string>`count(*)`.as('n')])
      .groupBy('vendor_id')
      .execute();
    return Object.fromEntries(rows.map((r) => [String(r.vendor_id), Number(r.n)]));
  }

  // --- models ---

  /** Newest first; keyword matches part of the name, description or tags. */
  async modelPage(w: RowWindow, f: ModelFilter): Promise<Slice<ModelRow>> {
    let base = this.k.selectFrom('models');
    if (f.keyword) {
      const kw = f.keyword;
      base = base.where((eb) => eb.or([holds('model_name', kw), holds('description', kw), holds('tags', kw)]));
    }
    if (f.vendor) {
      const vendor = f.vendor;
      if (DIGITS.test(vendor)) base = base.where('vendor_id', '=', Number(vendor));
      else
        base = base.where('vendor_id', 'in', (eb) =>
          eb.selectFrom('vendors').select('id').where(holds('name', vendor)),
        );
    }
    if (f.status !== undefined) base = base.where('status', '=', f.status);
    if (f.syncOfficial !== undefined) base = base.where('sync_official', '=', f.syncOfficial);
    const slice = await selectPage(base, (q) => q.selectAll().orderBy('id', 'desc'), w);
    return { items: slice.items.map(modelRow), total: slice.total };
  }

  /** Every registry entry, oldest first (name rules are tried in this order). */
  async allModels(): Promise<ModelRow[]> {
    return (await this.k.selectFrom('models').selectAll().orderBy('id').execute()).map(modelRow);
  }

  async modelById(id: number): Promise<ModelRow | undefined> {
    const r = await this.k.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst();
    return r && modelRow(r);
  }

  async modelNameTaken(name: string, exceptId: number): Promise<boolean> {
    const r = await this.k
      .selectFrom('models')
      .select('id')
      .where('model_name', '=', name)
      .where('id', '<>', exceptId)
      .executeTakeFirst();
    return r !== undefined;
  }

  async insertModel(row: NewModel): Promise<number> {
    if (this.db.dialect === 'mysql')
      return Number((await this.k.insertInto('models').values(row).executeTakeFirstOrThrow()).insertId);
    return (await this.k.insertInto('models').values(row).returning('id').executeTakeFirstOrThrow()).id;
  }

  /** Changes the model (the caller checked it exists). */
  async updateModel(id: number, changes: ModelChanges): Promise<void> {
    await this.k.updateTable('models').set(changes).where('id', '=', id).execute();
  }

  async deleteModel(id: number): Promise<boolean> {
    const res = await this.k.deleteFrom('models').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
