/**
 * What the relay reads of an upstream answer's head: its content type (an SSE or a JSON answer) and length. Read
 * from undici's raw header list, name by name, instead of decoding every header into an object (undici's
 * `util.parseHeaders` cost about 12,000 instructions a call for the mock's five headers).
 */
export interface AnswerHeaders {
  readonly 'content-type'?: string;
  readonly 'content-length'?: string;
}

const CONTENT_TYPE = Buffer.from('content-type');
const CONTENT_LENGTH = Buffer.from('content-length');
const UPPER_A = 0x41;
const UPPER_Z = 0x5a;
/** An ASCII capital letter and its small letter differ by this bit. */
const CASE_BIT = 0x20;

/** Whether the header name `name` is `lower`, in any letter case. */
function isName(name: Buffer, lower: Buffer): boolean {
  if (name.length !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) {
    const c = name[i]!;
    if (c !== lower[i] && !(c >= UPPER_A && c <= UPPER_Z && (c | CASE_BIT) === lower[i])) return false;
  }
  return true;
}

/**
 * The content type and length of an answer whose head undici gave as `raw` (names and values in turn). Values are
 * read as latin1, the bytes as they came (a header value may hold bytes above 0x7f, which node:http writes back
 * the same way); of a header given twice, the first.
 */
export function answerHeaders(raw: readonly Buffer[]): AnswerHeaders {
  let type: string | undefined;
  let length: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (type === undefined && isName(name, CONTENT_TYPE)) type = raw[i + 1]!.toString('latin1');
    else if (length === undefined && isName(name, CONTENT_LENGTH)) length = raw[i + 1]!.toString('latin1');
  }
  return { 'content-type': type, 'content-length': length };
}
