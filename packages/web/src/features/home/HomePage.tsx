import { PageFallback } from '../../layout/AppLayout';
import { ContentFrame, isFrameUrl, RichContent } from '../../components/RichContent';
import { DefaultHero } from './DefaultHero';
import { NoticeModal } from './NoticeModal';
import { useContent } from './useContent';

/** Home (/): custom content (frame for an https:// address, else Markdown/HTML) or the default hero. */
export default function HomePage() {
  const { data, isPending } = useContent('home_page_content');
  const content = (data ?? '').trim();
  let body;
  if (data === undefined && isPending) body = <PageFallback />;
  else if (isFrameUrl(content)) body = <ContentFrame src={content} testId="home-frame" />;
  else if (content) body = <RichContent content={content} className="tw-home-content" testId="home-content" />;
  else body = <DefaultHero />;
  return (
    <>
      <NoticeModal />
      {body}
    </>
  );
}
