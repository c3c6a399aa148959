import type { OptionsService } from '../../core/options/service.js';
import { applyClaudeSettings, claudeSettingsOf, claudeThinkingSuffix } from './anthropic/settings.js';
import { applyGeminiSettings, geminiSettingsOf, geminiThinkingSuffix } from './gemini/settings.js';
import type { JsonObject } from '../ir/json-data.js';

/**
 * The models-tab settings of the wire format an upstream speaks (Claude settings for Anthropic Messages bodies,
 * Gemini settings for generateContent bodies), whichever adaptor sends them: `model` is the name for the URL and
 * the adaptor (thinking suffix stripped), `apply` tunes the body about to be sent and gives extra headers.
 */
export interface FormatSettings {
  model: string;
  apply(body: JsonObject, reasoningEffort?: string): { body: JsonObject; headers: Record<string, string> };
}

export function formatSettings(format: string, options: OptionsService, upstreamModel: string): FormatSettings {
  if (format === 'anthropic') {
    const s = claudeSettingsOf(options);
    return {
      model: claudeThinkingSuffix(upstreamModel, s).model,
      apply: (body) => {
        const r = applyClaudeSettings(body, upstreamModel, s);
        return { body: r.body, headers: r.headers };
      },
    };
  }
  if (format === 'gemini') {
    const s = geminiSettingsOf(options);
    return {
      model: geminiThinkingSuffix(upstreamModel, s).model,
      apply: (body, effort) => ({ body: applyGeminiSettings(body, upstreamModel, s, effort).body, headers: {} }),
    };
  }
  return { model: upstreamModel, apply: (body) => ({ body, headers: {} }) };
}
