import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Image, Input, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../lib/api';
import { SELF_KEY } from '../../lib/self';
import { useSubmit } from '../../lib/useSubmit';

/** Bind WeChat: scan the QR code, send a word to the account, enter the returned code (GET /api/oauth/wechat/bind). */
export function BindWeChatModal({ open, qrcode, onClose }: { open: boolean; qrcode: string; onClose: () => void }) {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const { loading, run } = useSubmit();
  const submit = async () => {
    if (!code.trim()) return void message.error(t('bindings.wechatCodeRequired'));
    await run(async () => {
      await apiGet<unknown>(`/api/oauth/wechat/bind?code=${encodeURIComponent(code.trim())}`);
      void message.success(t('bindings.wechatBound'));
      await queryClient.invalidateQueries({ queryKey: SELF_KEY });
      setCode('');
      onClose();
    });
  };
  return (
    <Modal
      open={open}
      title={t('bindings.bindWechat')}
      footer={null}
      onCancel={onClose}
      width={380}
      centered
      destroyOnHidden
      data-testid="me-bind-wechat-modal"
    >
      <Space orientation="vertical" align="center" style={{ width: '100%' }} size={12}>
        {qrcode && <Image src={qrcode} width={200} preview={false} alt="QR" />}
        <Typography.Text type="secondary" style={{ textAlign: 'center', display: 'block' }}>
          {t('bindings.bindWechatDesc')}
        </Typography.Text>
        <Space.Compact style={{ width: '100%' }}>
          <Input
            value={code}
            onChange={(e) => setCode(e.target.value)}
            placeholder={t('bindings.codePh')}
            onPressEnter={() => void submit()}
            data-testid="me-bind-wechat-code"
          />
          <Button type="primary" loading={loading} onClick={() => void submit()} data-testid="me-bind-wechat-submit">
            {t('bindings.bind')}
          </Button>
        </Space.Compact>
      </Space>
    </Modal>
  );
}
