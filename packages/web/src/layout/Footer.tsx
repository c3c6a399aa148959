import { ThunderboltFilled } from '@ant-design/icons';
import { Layout } from 'antd';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../lib/status';
import { FooterHtml } from './lazyParts';

/** Custom HTML footer from the settings (sanitized), or the default powered-by badge. */
export function Footer() {
  const { t } = useTranslation('shell');
  const { data: status } = useStatus();
  const html = status?.footer_html?.trim();
  return (
    <Layout.Footer className="tw-footer" data-testid="footer">
      {html ? (
        <Suspense fallback={null}>
          <FooterHtml html={html} />
        </Suspense>
      ) : (
        <div className="tw-footer-default">
          <span>{t('footer.rights', { year: new Date().getFullYear(), name: status?.system_name || 'Tollway' })}</span>
          <span className="tw-badge">
            <ThunderboltFilled /> {t('footer.poweredBy')}
          </span>
        </div>
      )}
    </Layout.Footer>
  );
}
