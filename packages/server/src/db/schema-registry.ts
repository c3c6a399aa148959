import type { Generated } from 'kysely';

/** Tables of the model registry (migration 0020). */

/** A model vendor of the model registry (new-api's vendors). */
export interface VendorsTable {
  id: Generated<number>;
  name: string;
  description: string;
  icon: string;
  status: number;
  created_time: number;
  updated_time: number;
  deleted_at: string | null;
}

/** A model's metadata in the registry (new-api's models); name_rule: 0 exact, 1 prefix, 2 contains, 3 suffix. */
export interface ModelsTable {
  id: Generated<number>;
  model_name: string;
  description: string;
  icon: string;
  tags: string;
  vendor_id: number;
  endpoints: string;
  context_length: number;
  max_output_tokens: number;
  knowledge_cutoff: string;
  release_date: string;
  parameter_count: string;
  input_modalities: string;
  output_modalities: string;
  status: number;
  sync_official: number;
  name_rule: number;
  created_time: number;
  updated_time: number;
  deleted_at: string | null;
}
