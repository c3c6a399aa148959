import { z } from 'zod';

/** The preset sources of the public assets host; legacy has only a completion file. */
export const PRESET_SOURCES = ['flexible', 'openrouter', 'mixed', 'legacy'] as const;
export type PresetSource = (typeof PRESET_SOURCES)[number];
/** "official": the source the unset-models tab fills from (mixed). */
export const OFFICIAL_SOURCE: PresetSource = 'mixed';

export const presetParams = z.object({ source: z.enum([...PRESET_SOURCES, 'official']) });

const ratioMap = z.record(z.string(), z.number());

export const presetAnswer = z.object({
  source: z.enum(PRESET_SOURCES),
  /** Model name to model (prompt) ratio; empty for legacy. */
  model_ratio: ratioMap,
  /** Model name to completion ratio. */
  completion_ratio: ratioMap,
  /** Unix seconds when the files were fetched (answers are cached for a few minutes). */
  fetched_at: z.number().int(),
});
export type PresetAnswer = z.infer<typeof presetAnswer>;
