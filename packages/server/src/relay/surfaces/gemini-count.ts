import { authenticate, type Identified } from '../entry/authenticate.js';
import { RelayError, relayErrors } from '../pipeline/errors.js';
import { parseJsonBody } from '../entry/inbound.js';
import { geminiGenerate, geminiModelFromPath } from '../providers/gemini/convert.js';
import type { RelayRequest } from '../entry/request.js';
import type { RelayContext } from '../pipeline/services.js';
import { countIRPromptTokens } from '../pipeline/token-count.js';
import { checkGemini, invalidParam, MAX_MODEL_NAME } from '../entry/validate.js';
import { modelNotFound } from './model-shapes.js';
import type { Body } from '../pipeline/types.js';

const isObject = (v: unknown): v is Body => !!v && typeof v === 'object' && !Array.isArray(v);

/** The request whose prompt is counted: `generateContentRequest` when sent, else the body's own `contents`. */
function countedRequest(body: Body): Body {
  if (body.generateContentRequest === undefined) return body;
  if (!isObject(body.generateContentRequest))
    throw invalidParam('generateContentRequest', 'generateContentRequest must be an object');
  return body.generateContentRequest;
}

/**
 * POST models/{model}:countTokens, answered by the gateway (not billed): the token may use the model and its
 * group is served it, then `totalTokens` is the gateway's own count of the prompt.
 */
export async function geminiCountTokens(
  ctx: RelayContext,
  req: RelayRequest,
  model: string,
  who: Identified | undefined,
): Promise<{ totalTokens: number }> {
  const { auth, group } = who ?? (await authenticate(req, ctx.relay.tokens));
  if (model.length > MAX_MODEL_NAME) throw invalidParam('model', `model must be at most ${MAX_MODEL_NAME} characters`);
  if (auth.modelLimits && !auth.modelLimits.has(model)) throw relayErrors.modelNotAllowed(model);
  if (!ctx.channelCache.hasModel(group, model)) throw modelNotFound(model, 'gemini');
  const request = countedRequest(parseJsonBody(req.body));
  checkGemini(request);
  try {
    return { totalTokens: countIRPromptTokens(geminiGenerate.requestToIR(request)) };
  } catch (err) {
    if (err instanceof RelayError) throw err;
    throw relayErrors.badBody('the contents cannot be read');
  }
}

/** The Gemini calls under models/* that the gateway answers itself; undefined for those relayed upstream. */
export function geminiLocalCall(
  ctx: RelayContext,
  req: RelayRequest,
  who: Identified | undefined,
): Promise<unknown> | undefined {
  const parsed = geminiModelFromPath(req.url);
  if (parsed?.method !== 'countTokens') return undefined;
  return geminiCountTokens(ctx, req, parsed.model, who);
}
