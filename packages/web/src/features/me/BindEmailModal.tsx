import { MailOutlined, SafetyOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Input, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../lib/api';
import { useSubmit } from '../../lib/useSubmit';
import { useTurnstile, withTurnstile } from '../../components/Turnstile';
import { useCountdown } from '../../lib/useCountdown';
import { SELF_KEY } from '../../lib/self';
import { ActionModal } from '../../components/ActionModal';

/** Bind (or change) the own email: GET /api/verification mails a code (30 s resend countdown), GET /api/oauth/email/bind checks it. */
export function BindEmailModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation(['me', 'common']);
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [left, startCountdown] = useCountdown(30);
  const sending = useSubmit();
  const binding = useSubmit();
  const botCheck = useTurnstile();
  useEffect(() => {
    if (open) {
      setEmail('');
      setCode('');
    }
  }, [open]);

  const sendCode = async () => {
    if (!email.trim()) {
      void message.error(t('bindings.emailRequired'));
      return;
    }
    const turnstile = botCheck.take();
    if (turnstile === undefined) return;
    await sending.run(async () => {
      await apiGet(withTurnstile(`/api/verification?email=${encodeURIComponent(email.trim())}`, turnstile));
      void message.success(t('bindings.codeSent'));
      startCountdown();
    });
  };

  const bind = async () => {
    if (!email.trim() || !code.trim()) {
      void message.error(t('bindings.bindRequired'));
      return;
    }
    await binding.run(async () => {
      await apiGet(
        `/api/oauth/email/bind?email=${encodeURIComponent(email.trim())}&code=${encodeURIComponent(code.trim())}`,
      );
      void queryClient.invalidateQueries({ queryKey: SELF_KEY });
      void message.success(t('bindings.emailBound'));
      onClose();
    });
  };

  return (
    <ActionModal
      open={open}
      title={t('bindings.bindEmail')}
      okText={t('bindings.bind')}
      okTestid="me-bind-email-submit"
      loading={binding.loading}
      onOk={bind}
      onClose={onClose}
      destroyOnHidden
    >
      <Space orientation="vertical" size={12} style={{ width: '100%' }}>
        <Space.Compact style={{ width: '100%' }}>
          <Input
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            type="email"
            prefix={<MailOutlined />}
            placeholder={t('bindings.emailPh')}
            data-testid="me-bind-email-input"
          />
          <Button
            loading={sending.loading}
            disabled={left > 0}
            onClick={() => void sendCode()}
            data-testid="me-bind-email-send"
          >
            {left > 0 ? t('bindings.resend', { s: left }) : t('bindings.sendCode')}
          </Button>
        </Space.Compact>
        <Input
          value={code}
          onChange={(e) => setCode(e.target.value)}
          prefix={<SafetyOutlined />}
          placeholder={t('bindings.codePh')}
          data-testid="me-bind-email-code"
          onPressEnter={() => void bind()}
        />
        {botCheck.widget}
      </Space>
    </ActionModal>
  );
}
