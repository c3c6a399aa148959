import { ErrorCode, type EditTagBody } from '@tollway/shared';
import { coded, notFound } from '../../lib/errors.js';
import { rebuildAbilities } from '../../core/routing/abilities.js';
import { statusPatch } from './status.js';
import type { ChannelPatch, ChannelsStore } from './store.js';
import { checkChannelExtras, checkModelMapping, joinGroups } from './validate.js';

/** Tag tools: tag a selection, edit every channel of a tag, enable or disable a tag. Each returns a count. */
export class TagTools {
  constructor(
    private readonly store: ChannelsStore,
    private readonly changed: () => Promise<void>,
  ) {}

  /** Sets the tag of the selected channels (ids that do not exist are skipped). */
  async batchTag(ids: number[], tag: string): Promise<number> {
    const n = await this.store.transaction(async (trx) => {
      await this.store.updateMany(trx, ids, { tag });
      const rows = await this.store.findMany(ids, trx);
      await rebuildAbilities(trx, rows);
      return rows.length;
    });
    if (n > 0) await this.changed();
    return n;
  }

  /** Overwrites the given fields on every channel of the tag; blank fields are unchanged, '' as new_tag dissolves it. */
  async edit(body: EditTagBody): Promise<number> {
    const patch: ChannelPatch = {};
    if (body.new_tag !== undefined && body.new_tag !== null && body.new_tag !== body.tag) patch.tag = body.new_tag;
    if (body.model_mapping !== undefined) {
      checkModelMapping(body.model_mapping);
      patch.model_mapping = body.model_mapping;
    }
    if (body.param_override !== undefined) patch.param_override = body.param_override;
    if (body.header_override !== undefined) {
      checkChannelExtras({ header_override: body.header_override });
      patch.header_override = body.header_override;
    }
    if (body.models !== undefined) {
      if (body.models.length === 0) throw coded(ErrorCode.TagModelsRequired, 'models: at least one model is required');
      patch.models = body.models.join(',');
    }
    if (body.groups !== undefined) {
      if (body.groups.length === 0) throw coded(ErrorCode.TagGroupsRequired, 'groups: at least one group is required');
      patch.group = joinGroups(body.groups);
    }
    if (body.priority !== undefined) patch.priority = body.priority;
    if (body.weight !== undefined) patch.weight = body.weight;
    if (Object.keys(patch).length === 0) throw coded(ErrorCode.NoChanges, 'no changes');
    const n = await this.store.transaction(async (trx) => {
      const rows = await this.store.findByTag(body.tag, trx);
      if (rows.length === 0)
        throw notFound(`no channel has the tag "${body.tag}"`, ErrorCode.TagNotFound, { tag: body.tag });
      await this.store.updateMany(
        trx,
        rows.map((r) => r.id),
        patch,
      );
      await rebuildAbilities(
        trx,
        rows.map((r) => ({ ...r, ...patch })),
      );
      return rows.length;
    });
    await this.changed();
    return n;
  }

  /** Enables (status 1) or disables (status 2) every channel of the tag. */
  async setStatus(tag: string, status: 1 | 2): Promise<number> {
    const n = await this.store.transaction(async (trx) => {
      const rows = await this.store.findByTag(tag, trx);
      if (rows.length === 0) throw notFound(`no channel has the tag "${tag}"`, ErrorCode.TagNotFound, { tag });
      const next = rows.map((r) => {
        const patch = r.status === status ? {} : statusPatch(r, status);
        return { row: { ...r, ...patch }, patch };
      });
      for (const { row, patch } of next) await this.store.update(trx, row.id, patch);
      await rebuildAbilities(
        trx,
        next.map((x) => x.row),
      );
      return rows.length;
    });
    await this.changed();
    return n;
  }
}
