/** Most characters of the prompt, and of the answer, that a consume log keeps with LogChatContentEnabled. */
export const CHAT_CONTENT_CAP = 16_000;
/** Appended to a text that was cut at the cap. */
export const CHAT_CONTENT_CUT_MARKER = '\n…[truncated]';

/**
 * Text collected piece by piece up to a cap; what comes after the cap is dropped as it arrives, so memory stays
 * bounded however long the answer. Pieces of different kinds (reasoning, text, each tool call's arguments) are
 * separated by a blank line; pieces of one kind (the deltas of a stream) are joined as they are.
 */
export class CappedText {
  private text = '';
  private kind: string | undefined;
  /** Something was dropped at the cap. */
  cut = false;

  constructor(private readonly cap = CHAT_CONTENT_CAP) {}

  add(piece: string, kind = 'text'): void {
    if (this.cut || !piece) return;
    if (this.kind !== undefined && this.kind !== kind) piece = `\n\n${piece}`;
    this.kind = kind;
    const room = this.cap - this.text.length;
    if (piece.length <= room) {
      this.text += piece;
      return;
    }
    // Never leave half of a surrogate pair at the end.
    const code = piece.charCodeAt(room - 1);
    const end = room > 0 && code >= 0xd800 && code <= 0xdbff ? room - 1 : room;
    this.text += piece.slice(0, Math.max(0, end));
    this.cut = true;
  }

  /** The text kept, with the marker when it was cut. */
  value(): string {
    return this.cut ? this.text + CHAT_CONTENT_CUT_MARKER : this.text;
  }
}
