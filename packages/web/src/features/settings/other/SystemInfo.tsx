import { SyncOutlined } from '@ant-design/icons';
import { App, Button, Card, Descriptions, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status';

/**
 * Where the update check reads the latest release (a GitHub-style release: tag_name, body), set at build time with
 * VITE_RELEASES_URL; the console's CSP lets it reach only its own site, so the feed is a path there (docs/console.md).
 * Without one there is no update check (the button is not shown).
 */
const RELEASES_URL: string = import.meta.env.VITE_RELEASES_URL ?? '';

function formatStart(seconds: number | undefined, lang: string): string {
  if (!seconds) return '—';
  return new Intl.DateTimeFormat(lang === 'en' ? 'en-US' : 'zh-CN', {
    dateStyle: 'medium',
    timeStyle: 'medium',
  }).format(new Date(seconds * 1000));
}

function formatUptime(seconds: number | undefined, t: TFunction): string {
  if (!seconds) return '—';
  const s = Math.max(0, Math.floor(Date.now() / 1000 - seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return t('info.uptimeValue', { d, h, m });
}

/** Version, start time and, when the build names a release feed, a check for updates that fails gracefully. */
export function SystemInfo() {
  const { t, i18n } = useTranslation('settings');
  const { message, modal } = App.useApp();
  const { data: status } = useStatus();
  const [checking, setChecking] = useState(false);

  const check = async () => {
    setChecking(true);
    try {
      const res = await fetch(RELEASES_URL, { headers: { Accept: 'application/json' } });
      if (!res.ok) throw new Error(String(res.status));
      const data = (await res.json()) as { tag_name?: string; body?: string } | { tag_name?: string; body?: string }[];
      const latest = Array.isArray(data) ? data[0] : data;
      if (!latest?.tag_name) throw new Error('no tag');
      const norm = (v: string) => v.replace(/^v/i, '');
      if (status?.version && norm(latest.tag_name) === norm(status.version)) {
        void message.success(t('info.latest'));
        return;
      }
      modal.info({
        title: t('info.newVersion', { version: latest.tag_name }),
        width: 560,
        content: (
          <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', maxHeight: 360, overflow: 'auto' }}>
            {latest.body || '—'}
          </Typography.Paragraph>
        ),
      });
    } catch {
      void message.error(t('info.checkFailed'));
    } finally {
      setChecking(false);
    }
  };

  return (
    <Card size="small" title={t('section.info.title')} style={{ marginBottom: 16 }} data-testid="settings-system-info">
      <Descriptions
        column={{ xs: 1, sm: 1, md: 3 }}
        size="small"
        items={[
          {
            key: 'version',
            label: t('info.version'),
            children: (
              <Typography.Text code data-testid="system-version">
                {status?.version || '—'}
              </Typography.Text>
            ),
          },
          { key: 'start', label: t('info.startTime'), children: formatStart(status?.start_time, i18n.language) },
          { key: 'uptime', label: t('info.uptime'), children: formatUptime(status?.start_time, t) },
        ]}
      />
      {RELEASES_URL && (
        <Button
          icon={<SyncOutlined />}
          loading={checking}
          onClick={() => void check()}
          style={{ marginTop: 12 }}
          data-testid="settings-check-update"
        >
          {t('info.check')}
        </Button>
      )}
    </Card>
  );
}
