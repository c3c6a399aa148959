import type { Router } from '../../http/route.js';
import { presetAnswer, presetParams } from './schema.js';
import { presetRatios } from './service.js';

/** Preset ratio sources for the pricing editors: read only; saving goes through PUT /api/option/. */
export function ratioPresetRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/ratio_preset/:source',
    // Read only, from the operator's fixed RATIO_PRESET_BASE_URL, for the pricing editors administrators use.
    level: 'admin',
    summary:
      "A preset source's model and completion ratios (flexible, openrouter, mixed, legacy; official is mixed), fetched from RATIO_PRESET_BASE_URL through the outbound guard and cached 5 minutes",
    tags: ['pricing', 'options'],
    params: presetParams,
    response: presetAnswer,
    handler: ({ ctx, params }) => presetRatios(ctx, params.source),
  });
}
