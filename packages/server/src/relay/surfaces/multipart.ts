/** One part of a multipart/form-data body as the scanner reports it. */
export interface PartInfo {
  name: string;
  filename?: string;
  contentType?: string;
  /** Absolute byte offsets of the part's content in the whole body. */
  start: number;
  end: number;
  /** The content of a text field (not of a file), when small enough to keep. */
  value?: string;
  /** Bytes of content. */
  size: number;
}

const MAX_HEADER_BLOCK = 16 * 1024;
const MAX_FIELD = 64 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');

/** The boundary of a multipart/form-data content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  return b && b.length <= 200 ? b : undefined;
}

function parseHeaders(block: string): Pick<PartInfo, 'name' | 'filename' | 'contentType'> {
  let name = '';
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') {
      name = /;\s*name="([^"]*)"/i.exec(value)?.[1] ?? /;\s*name=([^;\s]+)/i.exec(value)?.[1] ?? '';
      filename = /;\s*filename="([^"]*)"/i.exec(value)?.[1] ?? /;\s*filename=([^;\s]+)/i.exec(value)?.[1];
    } else if (key === 'content-type') contentType = value;
  }
  return { name, filename, contentType };
}

/**
 * A streaming multipart/form-data scanner: fed the body chunk by chunk, it reports each part with the byte
 * range of its content and, for text fields, the value. File contents are only counted, never kept, so memory
 * stays bounded by the delimiter length and the small text fields.
 */
export class MultipartScanner {
  readonly parts: PartInfo[] = [];
  private readonly dashBoundary: Buffer;
  private readonly delimiter: Buffer;
  private state: 'preamble' | 'after-boundary' | 'headers' | 'body' | 'done' = 'preamble';
  private buf: Buffer = Buffer.alloc(0);
  /** Absolute offset of buf[0]. */
  private at = 0;
  private current: PartInfo | undefined;
  private field: Buffer[] = [];
  private fieldBytes = 0;

  constructor(boundary: string) {
    this.dashBoundary = Buffer.from(`--${boundary}`);
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  get finished(): boolean {
    return this.state === 'done';
  }

  /** Consumes one chunk; throws on a malformed body. */
  push(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      if (this.state === 'done') {
        this.drop(this.buf.length);
        return;
      }
      if (!this.step()) return;
    }
  }

  /** Ends the body; throws when it stopped before the closing boundary. */
  end(): void {
    if (this.state !== 'done') throw new Error('the multipart body ended before its closing boundary');
  }

  private drop(n: number): void {
    this.buf = this.buf.subarray(n);
    this.at += n;
  }

  /** One state transition; false when more bytes are needed. */
  private step(): boolean {
    switch (this.state) {
      case 'preamble': {
        const i = this.buf.indexOf(this.dashBoundary);
        if (i < 0) {
          if (this.at + this.buf.length > MAX_HEADER_BLOCK) throw new Error('no multipart boundary found');
          return false;
        }
        this.drop(i + this.dashBoundary.length);
        this.state = 'after-boundary';
        return true;
      }
      case 'after-boundary': {
        if (this.buf.length < 2) return false;
        const two = this.buf.toString('latin1', 0, 2);
        if (two === '--') {
          this.state = 'done';
          return true;
        }
        if (two !== '\r\n') throw new Error('malformed multipart boundary line');
        this.drop(2);
        this.state = 'headers';
        return true;
      }
      case 'headers': {
        const i = this.buf.indexOf(CRLF2);
        if (i < 0) {
          if (this.buf.length > MAX_HEADER_BLOCK) throw new Error('multipart part headers are too large');
          return false;
        }
        const headers = parseHeaders(this.buf.toString('utf8', 0, i));
        this.drop(i + 4);
        this.current = { ...headers, start: this.at, end: this.at, size: 0 };
        this.field = [];
        this.fieldBytes = 0;
        this.state = 'body';
        return true;
      }
      case 'body': {
        const i = this.buf.indexOf(this.delimiter);
        if (i < 0) {
          const safe = this.buf.length - (this.delimiter.length - 1);
          if (safe > 0) {
            this.content(this.buf.subarray(0, safe));
            this.drop(safe);
          }
          return false;
        }
        this.content(this.buf.subarray(0, i));
        this.drop(i);
        const part = this.current!;
        part.end = this.at;
        if (part.filename === undefined) part.value = Buffer.concat(this.field).toString('utf8');
        this.parts.push(part);
        this.current = undefined;
        this.drop(this.delimiter.length);
        this.state = 'after-boundary';
        return true;
      }
      default:
        return false;
    }
  }

  private content(bytes: Buffer): void {
    const part = this.current!;
    part.size += bytes.length;
    if (part.filename !== undefined || bytes.length === 0) return;
    this.fieldBytes += bytes.length;
    if (this.fieldBytes > MAX_FIELD) throw new Error(`multipart field ${part.name} is too large`);
    this.field.push(Buffer.from(bytes));
  }
}
