import { App, Typography } from 'antd';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../lib/status';
import { useTheme } from '../lib/theme';

/** Cloudflare's widget script; explicit rendering, so the widget goes where and when React puts it. */
export const TURNSTILE_SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

interface TurnstileRenderOptions {
  sitekey: string;
  callback: (token: string) => void;
  'expired-callback'?: () => void;
  'error-callback'?: () => void;
  theme?: 'light' | 'dark' | 'auto';
  language?: string;
}

/** The part of Cloudflare's `window.turnstile` the console uses. */
interface TurnstileApi {
  render(el: HTMLElement, opts: TurnstileRenderOptions): string | undefined;
  reset?(widgetId?: string): void;
  remove?(widgetId?: string): void;
}

declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

/** A widget script that has not arrived by then is reported as not loading (the load may still finish later). */
export const WIDGET_SCRIPT_TIMEOUT_MS = 8000;

let scriptLoad: Promise<TurnstileApi> | undefined;

/** Loads the widget script once per page; every widget shares the one load (a failed load may be retried). */
function loadTurnstile(): Promise<TurnstileApi> {
  if (window.turnstile) return Promise.resolve(window.turnstile);
  scriptLoad ??= new Promise<TurnstileApi>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = TURNSTILE_SCRIPT;
    script.async = true;
    script.onload = () =>
      window.turnstile ? resolve(window.turnstile) : reject(new Error('turnstile script defined no window.turnstile'));
    script.onerror = () => {
      scriptLoad = undefined;
      script.remove();
      reject(new Error('turnstile script failed to load'));
    };
    document.head.appendChild(script);
  });
  return scriptLoad;
}

interface WidgetProps {
  siteKey: string;
  onToken: (token: string) => void;
  /** Each increase asks the widget for a fresh token (tokens are good for one call). */
  resets: number;
}

/** The Turnstile widget: renders into its own box, reports tokens, clears them when they expire or fail. */
function TurnstileWidget({ siteKey, onToken, resets }: WidgetProps) {
  const { t, i18n } = useTranslation('auth');
  const theme = useTheme();
  const box = useRef<HTMLDivElement>(null);
  const widget = useRef<{ api: TurnstileApi; id: string | undefined }>(undefined);
  const report = useRef(onToken);
  report.current = onToken;
  const [failed, setFailed] = useState(false);
  const language = i18n.language.startsWith('zh') ? 'zh-cn' : 'en';

  useEffect(() => {
    let live = true;
    setFailed(false);
    // A script that hangs (no network) fires no error: say so after a while instead of showing nothing.
    const slow = setTimeout(() => live && !widget.current && setFailed(true), WIDGET_SCRIPT_TIMEOUT_MS);
    loadTurnstile().then(
      (api) => {
        clearTimeout(slow);
        if (!live || !box.current) return;
        setFailed(false);
        const id = api.render(box.current, {
          sitekey: siteKey,
          theme,
          language,
          callback: (token) => report.current(token),
          'expired-callback': () => report.current(''),
          'error-callback': () => report.current(''),
        });
        widget.current = { api, id };
      },
      () => {
        clearTimeout(slow);
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
      clearTimeout(slow);
      const w = widget.current;
      widget.current = undefined;
      if (w?.id !== undefined) w.api.remove?.(w.id);
    };
  }, [siteKey, theme, language]);

  useEffect(() => {
    if (resets > 0) widget.current?.api.reset?.(widget.current.id);
  }, [resets]);

  return (
    <div
      style={{ display: 'flex', flexDirection: 'column', alignItems: 'center', minHeight: 65, marginBottom: 16 }}
      data-testid="turnstile"
    >
      <div ref={box} />
      {failed && (
        <Typography.Text type="danger" data-testid="turnstile-failed">
          {t('turnstile.loadFailed')}
        </Typography.Text>
      )}
    </div>
  );
}

export interface BotCheck {
  /** The widget to place in the form; null while the check is off. */
  widget: ReactNode;
  /**
   * The token for one call: '' while the check is off. While the check has not produced one yet it shows
   * "wait a few seconds" and returns undefined (the form then sends nothing). A taken token is spent: the
   * widget is asked for a fresh one.
   */
  take(): string | undefined;
}

/** The bot check of a public form (status.turnstile_check, status.turnstile_site_key). */
export function useTurnstile(): BotCheck {
  const { t } = useTranslation('auth');
  const { message } = App.useApp();
  const { data: status } = useStatus();
  const enabled = Boolean(status?.turnstile_check);
  const siteKey = status?.turnstile_site_key ?? '';
  const [token, setToken] = useState('');
  const [resets, setResets] = useState(0);

  const take = useCallback((): string | undefined => {
    if (!enabled) return '';
    if (!token) {
      void message.warning(t('turnstile.wait'));
      return undefined;
    }
    setToken('');
    setResets((n) => n + 1);
    return token;
  }, [enabled, token, message, t]);

  const widget = enabled ? <TurnstileWidget siteKey={siteKey} onToken={setToken} resets={resets} /> : null;
  return { widget, take };
}

/** `url` with the bot-check token added as its `turnstile` query parameter. */
export function withTurnstile(url: string, token: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}turnstile=${encodeURIComponent(token)}`;
}
