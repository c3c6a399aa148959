// Which action a submit asks for, its price's model name, and the earlier task it acts on.
import { MjAction, type MjActionName, type MjSubmitBody, mjBadRequest } from './wire.js';

/** The submit routes under /mj (and their mode-prefixed twins). */
export const MJ_SUBMIT_KINDS = [
  'imagine',
  'change',
  'simple-change',
  'describe',
  'blend',
  'action',
  'modal',
  'shorten',
  'upload-discord-images',
  'swap',
  'video',
  'edits',
] as const;
export type MjSubmitKind = (typeof MJ_SUBMIT_KINDS)[number];

/** What a submit does once its body is checked. */
export interface MjSubmitPlan {
  action: MjActionName;
  /** The price's model name (mj_imagine, mj_upscale, swap_face, …). */
  model: string;
  /** The task it acts on (change, simple-change, action, modal): must be the caller's own. */
  originTaskId?: string;
  /** Actions that open a modal are not billed (new-api: inpaint and custom zoom). */
  free: boolean;
}

const MAX_INDEX = 4;
const MAX_PROMPT = 8192;

/** new-api's model name of an action: mj_<action in lower case>, swap_face for face swaps. */
export function mjModelName(action: string): string {
  return action === MjAction.SwapFace ? 'swap_face' : `mj_${action.toLowerCase()}`;
}

const str = (v: unknown, field: string): string => {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw mjBadRequest(`${field}_must_be_a_string`);
  return v;
};

/** An image's index: an integer 1–4 (a JSON number; new-api's int field refuses strings and booleans). */
const validIndex = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= MAX_INDEX;

/** A midjourney-proxy-plus button id (`MJ::JOB::upsample::2::<hash>`) as a plain action and index. */
export function actionOfCustomId(customId: string): { action: MjActionName; index: number } {
  const parts = customId.split('::');
  if (parts.length < 2 || parts[0] !== 'MJ') throw mjBadRequest('unknown_action');
  const name = parts[1] === 'JOB' ? (parts[2] ?? '') : parts[1]!;
  const lower = name.toLowerCase();
  const indexed = (action: MjActionName) => {
    const index = Number(parts[3]);
    if (!validIndex(index)) throw mjBadRequest('index_parse_failed');
    return { action, index };
  };
  if (lower.includes('upsample')) return indexed(MjAction.Upscale);
  if (lower === 'variation') return indexed(MjAction.Variation);
  if (lower === 'low_variation') return { action: MjAction.LowVariation, index: 1 };
  if (lower === 'high_variation') return { action: MjAction.HighVariation, index: 1 };
  if (lower.includes('pan')) return { action: MjAction.Pan, index: 1 };
  if (lower.includes('reroll')) return { action: MjAction.ReRoll, index: 1 };
  if (lower === 'outpaint') return { action: MjAction.Zoom, index: 1 };
  if (lower === 'customzoom') return { action: MjAction.CustomZoom, index: 1 };
  if (lower === 'inpaint') return { action: MjAction.InPaint, index: 1 };
  throw mjBadRequest('unknown_action');
}

/** `"<taskId> U1"` (U1–U4, V1–V4 or R) as a task, action and index. */
export function parseSimpleChange(
  content: string,
): { taskId: string; action: MjActionName; index: number } | undefined {
  const parts = content.trim().split(/\s+/);
  if (parts.length !== 2) return undefined;
  const [taskId, code] = [parts[0]!, parts[1]!.toLowerCase()];
  if (code === 'r') return { taskId, action: MjAction.ReRoll, index: 1 };
  const index = Number(code.slice(1));
  if (code.length !== 2 || !validIndex(index)) return undefined;
  if (code[0] === 'u') return { taskId, action: MjAction.Upscale, index };
  if (code[0] === 'v') return { taskId, action: MjAction.Variation, index };
  return undefined;
}

const CHANGE_ACTIONS: readonly string[] = [MjAction.Upscale, MjAction.Variation, MjAction.ReRoll];

const plan = (action: MjActionName, originTaskId?: string): MjSubmitPlan => ({
  action,
  model: mjModelName(action),
  originTaskId,
  free: action === MjAction.InPaint || action === MjAction.CustomZoom,
});

const base64List = (v: unknown, field: string, min: number): string[] => {
  if (!Array.isArray(v) || v.length < min || v.some((x) => typeof x !== 'string' || !x))
    throw mjBadRequest(`${field}_is_required`);
  return v as string[];
};

/** Checks one submit's body as its route reads it; refusals are 400s in midjourney-proxy's shape. */
export function planSubmit(kind: MjSubmitKind, body: MjSubmitBody): MjSubmitPlan {
  str(body.notifyHook, 'notifyHook');
  str(body.state, 'state');
  switch (kind) {
    case 'imagine': {
      const prompt = str(body.prompt, 'prompt');
      if (!prompt.trim()) throw mjBadRequest('prompt_is_required');
      if (prompt.length > MAX_PROMPT) throw mjBadRequest('prompt_too_long');
      if (body.base64Array !== undefined) base64List(body.base64Array, 'base64Array', 0);
      return plan(MjAction.Imagine);
    }
    case 'describe':
      if (!str(body.base64, 'base64')) throw mjBadRequest('base64_is_required');
      return plan(MjAction.Describe);
    case 'blend':
      base64List(body.base64Array, 'base64Array', 2);
      return plan(MjAction.Blend);
    case 'shorten': {
      const prompt = str(body.prompt, 'prompt');
      if (!prompt.trim()) throw mjBadRequest('prompt_is_required');
      if (prompt.length > MAX_PROMPT) throw mjBadRequest('prompt_too_long');
      return plan(MjAction.Shorten);
    }
    case 'upload-discord-images':
      base64List(body.base64Array, 'base64Array', 1);
      return plan(MjAction.Upload);
    case 'swap':
      if (!str(body.sourceBase64, 'sourceBase64') || !str(body.targetBase64, 'targetBase64'))
        throw mjBadRequest('sour_base64_and_target_base64_is_required');
      return plan(MjAction.SwapFace);
    case 'change': {
      const taskId = str(body.taskId, 'taskId');
      const action = str(body.action, 'action');
      if (!taskId) throw mjBadRequest('task_id_is_required');
      if (!action) throw mjBadRequest('action_is_required');
      if (!CHANGE_ACTIONS.includes(action)) throw mjBadRequest('unknown_action');
      if (action !== MjAction.ReRoll && !validIndex(body.index)) throw mjBadRequest('index_is_required');
      return plan(action as MjActionName, taskId);
    }
    case 'simple-change': {
      const parsed = parseSimpleChange(str(body.content, 'content'));
      if (!parsed) throw mjBadRequest('content_parse_failed');
      return plan(parsed.action, parsed.taskId);
    }
    case 'action': {
      const customId = str(body.customId, 'customId');
      const taskId = str(body.taskId, 'taskId');
      if (!customId) throw mjBadRequest('custom_id_is_required');
      if (!taskId) throw mjBadRequest('task_id_is_required');
      return plan(actionOfCustomId(customId).action, taskId);
    }
    case 'modal': {
      const taskId = str(body.taskId, 'taskId');
      if (!taskId) throw mjBadRequest('task_id_is_required');
      return plan(MjAction.Modal, taskId);
    }
    case 'video': {
      // An earlier task's image (on that task's channel), or an image given with the request.
      const taskId = str(body.taskId, 'taskId');
      const image = str(body.image, 'image');
      str(body.motion, 'motion');
      if (!taskId && !image) throw mjBadRequest('task_id_is_required');
      if (str(body.prompt, 'prompt').length > MAX_PROMPT) throw mjBadRequest('prompt_too_long');
      return plan(MjAction.Video, taskId || undefined);
    }
    case 'edits': {
      const prompt = str(body.prompt, 'prompt');
      if (!prompt.trim()) throw mjBadRequest('prompt_is_required');
      if (prompt.length > MAX_PROMPT) throw mjBadRequest('prompt_too_long');
      str(body.image, 'image');
      return plan(MjAction.Edits);
    }
  }
}
