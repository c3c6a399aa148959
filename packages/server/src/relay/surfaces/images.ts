import type { RelayRequest } from '../entry/request.js';
import { bodyModel, checkImageFields, invalidParam } from '../entry/validate.js';
import { parseJsonBody } from '../entry/inbound.js';
import { openAIChat } from '../providers/openai/chat.js';
import type { CallUsage } from '../billing/usage.js';
import { REPLICATE_FORMAT } from '../providers/replicate/adaptor.js';
import { replicateImages } from './replicate-images.js';
import { replicateUpload } from './replicate-upload.js';
import { spooledBody } from './spool.js';
import { multipartInbound } from './multipart-inbound.js';
import { cannotServe, countedUsage, forwardPassThrough, openAITarget } from './upstream.js';
import type { Body, InboundCall, Surface } from '../pipeline/types.js';

/**
 * Price factors of one image by size and quality, relative to the model's base price (standard quality,
 * 1024×1024), from OpenAI's published per-image prices: DALL·E 3 standard $0.040 (1024²) / $0.080 (1024×1792,
 * 1792×1024), HD $0.080 / $0.120; DALL·E 2 $0.020 (1024²), $0.018 (512²), $0.016 (256²).
 */
export function imageFactor(model: string, size: string | undefined, quality: string | undefined): number {
  if (model.startsWith('dall-e-3')) {
    const tall = size === '1024x1792' || size === '1792x1024';
    if (quality === 'hd') return tall ? 3 : 2;
    return tall ? 2 : 1;
  }
  if (model.startsWith('dall-e-2')) {
    if (size === '512x512') return 0.9;
    if (size === '256x256') return 0.8;
  }
  return 1;
}

/**
 * Output tokens one image may be billed for when the upstream reports tokens (gpt-image-1): its largest, a high
 * quality 1024×1536 or 1536×1024 image, per OpenAI's published table. A ratio-priced image call is held for this
 * many per image (no client cap exists to hold for instead), so the answer never costs more than the hold.
 */
export const IMAGE_OUTPUT_TOKENS_MAX = 6240;

const imageCount = (n: unknown): number => {
  // A number in JSON; a numeric string in a multipart form.
  const count =
    n === undefined || n === null
      ? 1
      : typeof n === 'number'
        ? n
        : typeof n === 'string' && n.trim()
          ? Number(n)
          : Number.NaN;
  if (!Number.isInteger(count) || count < 1 || count > 10) throw invalidParam('n', 'n must be an integer from 1 to 10');
  return count;
};

/** Units billed for a call at a per-image price: images × the size/quality factor of the model used. */
const imageUnits = (model: string, fields: Record<string, unknown>): number => {
  const factor = imageFactor(model, fields.size as string | undefined, fields.quality as string | undefined);
  return Number((imageCount(fields.n) * factor).toFixed(6));
};

/** Output tokens a call is held for: every image at its most (ignored by per-image prices). */
const imageOutputHold = (fields: Record<string, unknown>): number => imageCount(fields.n) * IMAGE_OUTPUT_TOKENS_MAX;

/** Billing usage of an image call: tokens when the upstream reports them (gpt-image-1), else the prompt counted. */
const imageUsage = (reported: CallUsage | undefined, prompt: string, units: number): CallUsage =>
  reported ? { ...reported, units } : countedUsage(prompt, '', units);

/** POST /v1/images/generations (JSON): passed through; billed per image at a model price, or by tokens. */
export function imagesGenerationInbound(req: RelayRequest): InboundCall {
  const body = parseJsonBody(req.body);
  const model = bodyModel(body) || 'dall-e-2';
  if (typeof body.prompt !== 'string' || !body.prompt) throw invalidParam('prompt', 'prompt is required');
  checkImageFields(body);
  const units = imageUnits(model, body);
  const stream = body.stream === true;
  const surface: Surface = {
    forward(a) {
      if (a.adaptor.format === REPLICATE_FORMAT)
        return replicateImages(a, body, () => imageUsage(undefined, body.prompt as string, imageUnits(a.model, body)));
      const t = openAITarget(a, '/v1/images/generations');
      if (!t) return Promise.resolve(cannotServe(a, '/v1/images/generations'));
      const upstream: Body = { ...body, model: a.model, ...a.channel.paramOverride };
      return forwardPassThrough(
        a,
        t,
        JSON.stringify(upstream),
        stream,
        (u) => imageUsage(u, body.prompt as string, imageUnits(a.model, body)),
        true,
      );
    },
  };
  return {
    format: openAIChat,
    body,
    model,
    stream,
    includeUsage: false,
    maxTokens: imageOutputHold(body),
    bytes: Buffer.byteLength(body.prompt),
    surface,
    units,
  };
}

/** POST /v1/images/edits (multipart, the images and mask streamed from a spool): billed like generations. */
export const imagesEditInbound = multipartInbound((spool, model) => {
  const prompt = spool.fields.prompt ?? '';
  const surface: Surface = {
    forward(a) {
      if (a.adaptor.format === REPLICATE_FORMAT)
        return replicateImages(
          a,
          { ...spool.fields },
          () => imageUsage(undefined, prompt, imageUnits(a.model, spool.fields)),
          replicateUpload(a, spool),
        );
      const t = openAITarget(a, '/v1/images/edits', spool.contentType);
      if (!t) return Promise.resolve(cannotServe(a, '/v1/images/edits'));
      const { body, length } = spooledBody(spool, { model: a.model });
      t.headers['content-length'] = String(length);
      return forwardPassThrough(
        a,
        t,
        body,
        spool.fields.stream === 'true',
        (u) => imageUsage(u, prompt, imageUnits(a.model, spool.fields)),
        true,
      );
    },
  };
  return {
    surface,
    units: imageUnits(model, spool.fields),
    bytes: Buffer.byteLength(prompt),
    stream: spool.fields.stream === 'true',
    maxTokens: imageOutputHold(spool.fields),
  };
});
