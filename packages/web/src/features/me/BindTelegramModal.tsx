import { useQueryClient } from '@tanstack/react-query';
import { App, Modal, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { TelegramLogin } from '../../components/TelegramLogin';
import { SELF_KEY } from '../../lib/self';

/** Bind Telegram: the login widget's answer is sent as a console call (GET /api/oauth/telegram/bind with New-Api-User). */
export function BindTelegramModal({ open, botName, onClose }: { open: boolean; botName: string; onClose: () => void }) {
  const { t } = useTranslation('me');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const bound = useCallback(() => {
    void message.success(t('bindings.telegramBound'));
    void queryClient.invalidateQueries({ queryKey: SELF_KEY });
    onClose();
  }, [message, onClose, queryClient, t]);
  return (
    <Modal
      open={open}
      title={t('bindings.bindTelegram')}
      footer={null}
      onCancel={onClose}
      destroyOnHidden
      data-testid="me-bind-telegram-modal"
    >
      <Typography.Paragraph type="secondary">{t('bindings.bindTelegramDesc')}</Typography.Paragraph>
      {open && <TelegramLogin botName={botName} action="bind" onLoggedIn={bound} />}
    </Modal>
  );
}
