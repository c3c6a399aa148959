import { NotificationOutlined } from '@ant-design/icons';
import { Button, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../components/RichContent';
import { useContent } from './useContent';

const SEEN_KEY = 'notice_seen';

function hash(text: string): string {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = ((h << 5) + h + text.charCodeAt(i)) | 0;
  return (h >>> 0).toString(36);
}

/** The system notice (GET /api/notice), shown once per content. */
export function NoticeModal() {
  const { t } = useTranslation('home');
  const { data, isPlaceholderData } = useContent('notice');
  const [open, setOpen] = useState(false);
  const text = isPlaceholderData ? '' : (data ?? '').trim();
  useEffect(() => {
    if (text && localStorage.getItem(SEEN_KEY) !== hash(text)) setOpen(true);
  }, [text]);
  const close = () => {
    localStorage.setItem(SEEN_KEY, hash(text));
    setOpen(false);
  };
  return (
    <Modal
      open={open && !!text}
      onCancel={close}
      title={
        <span>
          <NotificationOutlined style={{ color: '#1677ff', marginRight: 8 }} />
          {t('notice.title')}
        </span>
      }
      footer={
        <Button type="primary" onClick={close} data-testid="notice-close">
          {t('notice.close')}
        </Button>
      }
      width={600}
      centered
    >
      <div style={{ maxHeight: '60vh', overflow: 'auto' }}>
        <RichContent content={text} testId="notice-content" />
      </div>
    </Modal>
  );
}
