import { Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../lib/api';
import { WIDGET_SCRIPT_TIMEOUT_MS } from './Turnstile';
import { rememberedInviteCode } from '../lib/oauth';

interface TelegramUser {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
}

declare global {
  interface Window {
    onTelegramAuth?: (user: TelegramUser) => void;
  }
}

/**
 * The messaging-bot login widget; its answer goes to GET /api/oauth/telegram/login, or with
 * `action="bind"` to GET /api/oauth/telegram/bind as a console call (New-Api-User), binding it to the signed-in user.
 */
export function TelegramLogin({
  botName,
  onLoggedIn,
  action = 'login',
}: {
  botName: string;
  onLoggedIn: (user: unknown) => void;
  action?: 'login' | 'bind';
}) {
  const { t } = useTranslation('auth');
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    window.onTelegramAuth = (tg) => {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(tg)) if (v !== undefined && v !== null) q.set(k, String(v));
      q.set('lang', localStorage.getItem('i18nextLng') ?? 'zh');
      // The invite code remembered from a ?aff= link (a new account is rewarded as with the other sign-ins).
      const aff = action === 'login' ? rememberedInviteCode() : null;
      if (aff) q.set('aff', aff);
      apiGet<unknown>(`/api/oauth/telegram/${action}?${q}`).then(onLoggedIn, () => undefined);
    };
    const el = box.current;
    if (!el) return;
    const script = document.createElement('script');
    script.async = true;
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.dataset.telegramLogin = botName;
    script.dataset.size = 'large';
    script.dataset.onauth = 'onTelegramAuth(user)';
    script.dataset.requestAccess = 'write';
    setFailed(false);
    script.onerror = () => setFailed(true);
    // The script puts its button in an iframe; none by the deadline (a hanging load) is reported like an error.
    const slow = setTimeout(() => {
      if (!el.querySelector('iframe')) setFailed(true);
    }, WIDGET_SCRIPT_TIMEOUT_MS);
    el.appendChild(script);
    return () => {
      clearTimeout(slow);
      el.innerHTML = '';
      delete window.onTelegramAuth;
    };
  }, [action, botName, onLoggedIn]);
  return (
    <div style={{ display: 'flex', flexDirection: 'column', alignItems: 'center' }}>
      <div ref={box} data-testid="oauth-telegram" style={{ display: 'flex', justifyContent: 'center' }} />
      {failed && (
        <Typography.Text type="danger" data-testid="oauth-telegram-failed">
          {t('telegramWidget.loadFailed')}
        </Typography.Text>
      )}
    </div>
  );
}
