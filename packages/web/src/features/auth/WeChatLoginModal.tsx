import { Button, Image, Input, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../lib/api';
import { rememberedInviteCode } from '../../lib/oauth';
import { useSubmit } from '../../lib/useSubmit';

/** QR login: scan, send a word to the account, enter the returned code (valid 3 minutes). */
export function WeChatLoginModal({
  open,
  qrcode,
  onClose,
  onLoggedIn,
}: {
  open: boolean;
  qrcode: string;
  onClose: () => void;
  onLoggedIn: (user: unknown) => void;
}) {
  const { t } = useTranslation('auth');
  const [code, setCode] = useState('');
  const { loading, run } = useSubmit();
  const submit = async () => {
    if (!code.trim()) return;
    await run(async () => {
      const aff = rememberedInviteCode();
      const user = await apiGet<unknown>(
        `/api/oauth/wechat?code=${encodeURIComponent(code.trim())}${aff ? `&aff=${encodeURIComponent(aff)}` : ''}`,
      );
      onClose();
      onLoggedIn(user);
    });
  };
  return (
    <Modal open={open} title={t('oauth.wechatTitle')} footer={null} onCancel={onClose} width={380} centered>
      <Space orientation="vertical" align="center" style={{ width: '100%' }} size={12}>
        {qrcode && <Image src={qrcode} width={200} preview={false} alt="QR" />}
        <Typography.Text type="secondary" style={{ textAlign: 'center', display: 'block' }}>
          {t('oauth.wechatHint')}
        </Typography.Text>
        <Space.Compact style={{ width: '100%' }}>
          <Input
            value={code}
            onChange={(e) => setCode(e.target.value)}
            placeholder={t('oauth.wechatCodePh')}
            onPressEnter={() => void submit()}
          />
          <Button type="primary" loading={loading} onClick={() => void submit()}>
            {t('oauth.wechatSubmit')}
          </Button>
        </Space.Compact>
      </Space>
    </Modal>
  );
}
