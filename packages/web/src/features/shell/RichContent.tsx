import { contentToHtml } from './markdown';

interface Props {
  content: string;
  className?: string;
  testId?: string;
}

/** Renders admin-authored Markdown or HTML (notice, home page, about). */
export function RichContent({ content, className, testId }: Props) {
  return (
    <div
      className={`tw-rich ${className ?? ''}`}
      data-testid={testId}
      dangerouslySetInnerHTML={{ __html: contentToHtml(content) }}
    />
  );
}

/** Content that is a single https:// address is shown in a frame (home page and about, spec 3 §2). */
export function isFrameUrl(content: string): boolean {
  return /^https:\/\/\S+$/.test(content.trim());
}

export function ContentFrame({ src, testId }: { src: string; testId?: string }) {
  return <iframe className="tw-frame" src={src.trim()} title="content" data-testid={testId} />;
}
