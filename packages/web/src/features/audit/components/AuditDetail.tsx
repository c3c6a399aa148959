import { Descriptions, Modal, Tag, Typography } from 'antd';
import type { AuditRow } from '@tollway/shared';
import { useTranslation } from 'react-i18next';
import { formatTime } from '../../../lib/format-time';
import { auditActionText, auditTargetText } from '../labels';

/** The stored detail pretty-printed; text that is not JSON is shown as it is. Always plain text, never HTML. */
export function prettyDetail(detail: string): string {
  try {
    return JSON.stringify(JSON.parse(detail), null, 2);
  } catch {
    return detail;
  }
}

/** One entry in full: who, what, target, from where, and the JSON detail as text. */
export function AuditDetail({ row, onClose }: { row: AuditRow | null; onClose: () => void }) {
  const { t, i18n } = useTranslation('audit');
  return (
    <Modal open={row !== null} title={t('detail.title')} onCancel={onClose} footer={null} width={720} destroyOnHidden>
      {row && (
        <div data-testid="audit-detail">
          <Descriptions size="small" column={1} bordered>
            <Descriptions.Item label={t('col.time')}>{formatTime(row.created_at)}</Descriptions.Item>
            <Descriptions.Item label={t('col.actor')}>
              {row.actor_name} (#{row.actor_id})
            </Descriptions.Item>
            <Descriptions.Item label={t('col.action')}>
              {auditActionText(row.action, i18n.language)} <Typography.Text code>{row.action}</Typography.Text>{' '}
              <Tag color={row.outcome === 'denied' ? 'red' : 'green'}>{t(`outcome.${row.outcome}`)}</Tag>
            </Descriptions.Item>
            <Descriptions.Item label={t('col.target')}>
              {auditTargetText(row.target_type, row.target_id, i18n.language)}
            </Descriptions.Item>
            <Descriptions.Item label={t('col.ip')}>{row.ip}</Descriptions.Item>
            <Descriptions.Item label={t('detail.userAgent')}>
              <Typography.Text style={{ wordBreak: 'break-all' }}>{row.user_agent}</Typography.Text>
            </Descriptions.Item>
          </Descriptions>
          <Typography.Title
            level={5}
            style={{ marginTop: 16 }}
            copyable={{ text: row.detail, tooltips: [t('detail.copy')] }}
          >
            {t('detail.raw')}
          </Typography.Title>
          <pre className="tw-audit-json" data-testid="audit-detail-json">
            {prettyDetail(row.detail)}
          </pre>
        </div>
      )}
    </Modal>
  );
}
