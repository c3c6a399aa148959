import type { IRRequest, UpstreamFormat } from '../../ir/types.js';
import { baseUrlOf } from '../base-url.js';
import { UpstreamPrepareError } from '../prepare.js';
import type { UpstreamAdaptor } from '../types.js';

/**
 * Replicate (type 56): image generation as new-api serves it — `/v1/images/generations` becomes a prediction,
 * `POST {base}/v1/models/{owner}/{name}/predictions` with `Prefer: wait` (relay/surfaces/replicate-images.ts).
 * It has no chat API: a chat call fails with 501 before anything is sent.
 */

export const REPLICATE_FORMAT = 'replicate';

/** Chat calls are not sent: the channel serves image generation only. */
export const REPLICATE_NO_CHAT =
  'Replicate channels serve image generation (/v1/images/generations) only; this channel cannot serve chat calls.';
/** HTTP 501: not served by this channel (another channel of the model may serve it). */
const NOT_SERVED = 501;

/** The format of Replicate channels: a chat call is refused before anything is sent (the adaptor's prepare). */
export const replicateFormat: UpstreamFormat<undefined> = {
  name: REPLICATE_FORMAT,
  requestFromIR: (ir: IRRequest) => ({ model: ir.model }),
  responseToIR() {
    throw new Error(REPLICATE_NO_CHAT);
  },
  newDecodeState: () => undefined,
  decodeEvent: () => [{ type: 'error', message: REPLICATE_NO_CHAT }],
};

/** The predictions endpoint of a model (`owner/name`), Bearer key, waiting for the answer when it comes soon. */
export const replicateAdaptor: UpstreamAdaptor<'replicate'> = {
  format: REPLICATE_FORMAT,
  target({ channel, key, model }) {
    return {
      url: new URL(`${baseUrlOf(channel)}/v1/models/${model.split('/').map(encodeURIComponent).join('/')}/predictions`),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${key}`,
        prefer: 'wait',
      },
    };
  },
  prepare() {
    throw new UpstreamPrepareError(REPLICATE_NO_CHAT, NOT_SERVED);
  },
};

/** A prediction's own URL (polled until it ends). */
export const replicatePredictionUrl = (base: string, id: string) =>
  new URL(`${base}/v1/predictions/${encodeURIComponent(id)}`);
