import type { WireFormat } from './types.js';

type ClientSide = Pick<WireFormat, 'requestToIR' | 'responseFromIR' | 'newEncodeState' | 'encodeEvent'>;

/**
 * The client-facing half of a format that Tollway only speaks to upstreams (Cohere, Dify, Coze): no inbound
 * surface accepts it, so reaching these is a programming error with a clear message.
 */
export function upstreamOnly(name: string): ClientSide {
  const refuse = (): never => {
    throw new Error(`${name} is an upstream-only wire format`);
  };
  return { requestToIR: refuse, responseFromIR: refuse, newEncodeState: refuse, encodeEvent: refuse };
}

/** Parses an SSE data payload as a JSON object; undefined when it is not one. */
export function parseData(data: string): Record<string, unknown> | undefined {
  try {
    const j = JSON.parse(data) as unknown;
    return j && typeof j === 'object' && !Array.isArray(j) ? (j as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The text of an IR message's text parts, joined. */
export const joinedText = (parts: { type: string; text?: string }[]): string =>
  parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
