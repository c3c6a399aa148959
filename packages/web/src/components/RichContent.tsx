import { safeUrl } from '../lib/sanitize';
import { renderContent, type ContentFormat } from '../lib/markdown';

interface Props {
  content: string;
  /** A message's own format; settings text (notice, home page, about) is `auto`. */
  format?: ContentFormat;
  className?: string;
  testId?: string;
}

/** Renders administrator-authored Markdown or HTML (messages, notice, home page, about), always sanitized. */
export function RichContent({ content, format = 'auto', className, testId }: Props) {
  return (
    <div
      className={`tw-rich ${className ?? ''}`}
      data-testid={testId}
      dangerouslySetInnerHTML={{ __html: renderContent(content, format) }}
    />
  );
}

/** Content that is a single https:// address is shown in a frame (home page and about). */
export function isFrameUrl(content: string): boolean {
  const text = content.trim();
  return /^https:\/\/\S+$/.test(text) && safeUrl(text, 'page') !== undefined;
}

/**
 * What a framed page may do: run its own scripts and keep its own storage (it is another site: the console's
 * pages refuse to be framed), open forms and pop-ups, but never navigate the console's window.
 */
export const FRAME_SANDBOX =
  'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads';

/** An http(s) page in a sandboxed frame; anything else is not shown. */
export function ContentFrame({
  src,
  title = 'content',
  className = 'tw-frame',
  testId,
}: {
  src: string;
  title?: string;
  className?: string;
  testId?: string;
}) {
  const url = safeUrl(src.trim(), 'page');
  if (url === undefined) return null;
  return (
    <iframe
      className={className}
      src={url}
      title={title}
      sandbox={FRAME_SANDBOX}
      referrerPolicy="strict-origin-when-cross-origin"
      data-testid={testId}
    />
  );
}
