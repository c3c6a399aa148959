// new-api's model registry (model management): vendors and models' metadata, same columns as Tollway's.
import type { TableSpec } from './copy.js';
import type { MapContext } from './context.js';
import { deletedAt, num, ref, text } from './values.js';

const SOFT_DELETED = 'deleted in the source (soft delete)';

/** new-api's vendors; a name Tollway already has (merge) is skipped, deleted rows are left out. */
export function vendorsSpec(ctx: MapContext): TableSpec {
  return {
    source: 'vendors',
    target: 'vendors',
    uniques: ['name'],
    map: (r) =>
      deletedAt(r.deleted_at) !== null
        ? SOFT_DELETED
        : {
            id: num(r.id) + ctx.off.vendors,
            name: text(r.name),
            description: text(r.description),
            icon: text(r.icon),
            status: num(r.status, 1),
            created_time: num(r.created_time),
            updated_time: num(r.updated_time),
            deleted_at: null,
          },
  };
}

/** new-api's models (registry entries), their vendor id moved with the vendors. */
export function modelsSpec(ctx: MapContext): TableSpec {
  return {
    source: 'models',
    target: 'models',
    uniques: ['model_name'],
    map: (r) =>
      deletedAt(r.deleted_at) !== null
        ? SOFT_DELETED
        : {
            id: num(r.id) + ctx.off.models,
            model_name: text(r.model_name),
            description: text(r.description),
            icon: text(r.icon),
            tags: text(r.tags),
            vendor_id: ref(r.vendor_id, ctx.off.vendors),
            endpoints: text(r.endpoints),
            context_length: num(r.context_length),
            max_output_tokens: num(r.max_output_tokens),
            knowledge_cutoff: text(r.knowledge_cutoff),
            release_date: text(r.release_date),
            parameter_count: text(r.parameter_count),
            input_modalities: text(r.input_modalities),
            output_modalities: text(r.output_modalities),
            status: num(r.status, 1),
            sync_official: num(r.sync_official, 1),
            name_rule: num(r.name_rule),
            created_time: num(r.created_time),
            updated_time: num(r.updated_time),
            deleted_at: null,
          },
  };
}
