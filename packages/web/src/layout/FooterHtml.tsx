import { sanitizeHtml } from '../lib/sanitize';

/** The operator's footer HTML, sanitized (loaded only when a custom footer is set). */
export default function FooterHtml({ html }: { html: string }) {
  return <div className="tw-footer-custom" dangerouslySetInnerHTML={{ __html: sanitizeHtml(html) }} />;
}
