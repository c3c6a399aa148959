import type { IRRequest, UpstreamFormat } from '../../ir/types.js';
import { baseUrlOf } from '../base-url.js';
import { UpstreamPrepareError } from '../prepare.js';
import type { UpstreamAdaptor } from '../types.js';

/** HTTP 410 Gone: the API no longer exists. */
const GONE = 410;
export const PALM_RETIRED =
  'Google retired the PaLM API (generativelanguage v1beta2); this channel cannot serve calls. Change its type to Google Gemini.';

/**
 * Google PaLM 2 (type 11). Google retired the PaLM API, so nothing is sent: every call on such a channel fails with
 * 410 and a message saying so, which the caller receives in its own protocol's error shape.
 */
export const palmChat: UpstreamFormat<undefined> = {
  name: 'palm',
  requestFromIR: (ir: IRRequest) => ({ model: ir.model }),
  responseToIR() {
    throw new Error(PALM_RETIRED);
  },
  newDecodeState: () => undefined,
  decodeEvent: () => [{ type: 'error', message: PALM_RETIRED }],
};

export const palmAdaptor: UpstreamAdaptor<'palm'> = {
  format: 'palm',
  target({ channel, model }) {
    const base = baseUrlOf(channel, 'https://generativelanguage.googleapis.com');
    return { url: new URL(`${base}/v1beta2/models/${encodeURIComponent(model)}:generateMessage`), headers: {} };
  },
  prepare() {
    throw new UpstreamPrepareError(PALM_RETIRED, GONE);
  },
};
