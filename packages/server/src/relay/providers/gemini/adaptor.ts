import { baseUrlOf } from '../base-url.js';
import type { UpstreamAdaptor } from '../types.js';
import { geminiApiVersion, geminiSettingsOf } from './settings.js';

/**
 * Google Gemini (type 24): `{base}/{version}/models/{model}:generateContent` or `:streamGenerateContent?alt=sse`,
 * key in `x-goog-api-key`; the API version per model from gemini.version_settings ({default: 'v1beta', model: …}).
 */
export const geminiAdaptor: UpstreamAdaptor<'gemini'> = {
  format: 'gemini',
  target({ channel, key, model, stream, options }) {
    const version = geminiApiVersion(geminiSettingsOf(options), model);
    const method = stream ? 'streamGenerateContent' : 'generateContent';
    const url = new URL(`${baseUrlOf(channel)}/${version}/models/${encodeURIComponent(model)}:${method}`);
    if (stream) url.searchParams.set('alt', 'sse');
    return { url, headers: { 'content-type': 'application/json', 'x-goog-api-key': key } };
  },
};
