/**
 * one-api numbers channel types its own way (relay/channeltype/define.go); Tollway follows new-api's numbers.
 * Types 9–25, 31 and 33 mean the same vendor in both. OpenAI-compatible vendors new-api has no type for become
 * OpenAI channels at the vendor's address.
 */
const SAME = new Set([1, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 31, 33]);
/** one-api type → new-api type. */
const RENUMBERED: Record<number, number> = { 27: 35, 28: 42, 30: 4, 34: 49, 35: 34, 36: 43, 37: 39, 40: 45 };
const OPENAI = 1;
/** one-api type → [vendor, default address]: served as OpenAI-compatible channels. */
const COMPATIBLE: Record<number, [string, string]> = {
  2: ['API2D', 'https://oa.api2d.net'],
  4: ['CloseAI', 'https://api.closeai-proxy.xyz'],
  5: ['OpenAI-SB', 'https://api.openai-sb.com'],
  26: ['Baichuan', 'https://api.baichuan-ai.com'],
  29: ['Groq', 'https://api.groq.com/openai'],
  32: ['StepFun', 'https://api.stepfun.com'],
  39: ['Together AI', 'https://api.together.xyz'],
  41: ['Novita', 'https://api.novita.ai/v3/openai'],
};

export type TypeMapping = { type: number; baseUrl: string; note?: string; disable?: boolean };

/** The new-api type (and address) of a one-api channel; a type with no counterpart is kept disabled with a note. */
export function mapOneApiType(type: number, baseUrl: string): TypeMapping {
  if (SAME.has(type)) return { type, baseUrl };
  const renumbered = RENUMBERED[type];
  if (renumbered !== undefined)
    return {
      type: renumbered,
      baseUrl,
      note: `channels.type: one-api type ${type} stored as new-api type ${renumbered}`,
    };
  const compatible = COMPATIBLE[type];
  if (compatible) {
    const [vendor, address] = compatible;
    return {
      type: OPENAI,
      baseUrl: baseUrl || address,
      note: `channels.type: one-api type ${type} (${vendor}) stored as an OpenAI-compatible channel at its address`,
    };
  }
  return {
    type,
    baseUrl,
    disable: true,
    note: `channels.type: one-api type ${type} has no Tollway counterpart; the channel is kept disabled, pick its type and enable it`,
  };
}
