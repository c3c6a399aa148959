import { emptyUsage, type IRRequest, type IRStreamEvent, type UpstreamFormat } from '../../ir/types.js';
import { parseData } from '../../ir/json-data.js';
import type { LibraryDocument, LibraryRequest, LibraryResponse, LibraryStreamChunk } from './wire.js';

/**
 * AI Proxy's library API, upstream side: the question is the last message's text (the library answers one
 * question; the channel's `other` field names the library, set by the adaptor). The answer's documents are
 * appended as a numbered list of links. The API reports no usage: calls are billed on Tollway's own count.
 */

/** The list of an answer's source documents, as text appended to it. */
export function documentsText(docs: LibraryDocument[] | undefined): string {
  if (!docs?.length) return '';
  return `\n\nReferences:\n${docs.map((d, i) => `${i + 1}. [${d.title ?? ''}](${d.url ?? ''})`).join('\n')}`;
}

function requestFromIR(ir: IRRequest): LibraryRequest {
  const last = ir.messages.at(-1);
  const query = (last?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
  return { model: ir.model, query, libraryId: '', stream: ir.stream };
}

interface DecodeState {
  started: boolean;
  ended: boolean;
  documents: LibraryDocument[] | undefined;
}

/** The end of a stream: its documents (if any), then the stop. */
function ending(state: DecodeState): IRStreamEvent[] {
  state.ended = true;
  const docs = documentsText(state.documents);
  return [...(docs ? [{ type: 'text' as const, text: docs }] : []), { type: 'stop', reason: 'stop' }, { type: 'end' }];
}

export const libraryChat: UpstreamFormat<DecodeState> = {
  name: 'aiproxy-library',
  requestFromIR,
  responseToIR(body) {
    const b = body as LibraryResponse;
    const text = String(b.answer ?? '') + documentsText(b.documents);
    return { id: '', model: '', parts: text ? [{ type: 'text', text }] : [], stopReason: 'stop', usage: emptyUsage() };
  },
  newDecodeState: () => ({ started: false, ended: false, documents: undefined }),
  decodeEvent(state, { data }) {
    const j = parseData(data) as LibraryStreamChunk | undefined;
    if (!j || state.ended) return [];
    const out: IRStreamEvent[] = [];
    if (!state.started) {
      state.started = true;
      out.push({ type: 'start', id: '', model: '' });
    }
    if (j.content) out.push({ type: 'text', text: String(j.content) });
    if (Array.isArray(j.documents) && j.documents.length) state.documents = j.documents;
    if (j.finish) out.push(...ending(state));
    return out;
  },
  finish: (state) => (state.ended ? [] : ending(state)),
  answerError(body) {
    const b = body as LibraryResponse;
    const code = Number(b.errCode ?? 0);
    if (b.success !== false && !code) return undefined;
    return {
      status: code >= 400 && code < 600 ? code : 400,
      message: `AI Proxy library error ${code}: ${String(b.message ?? '')}`,
    };
  },
};
