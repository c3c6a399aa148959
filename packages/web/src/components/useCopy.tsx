import { App, Input, Typography } from 'antd';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';

async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  document.body.removeChild(area);
  if (!ok) throw new Error('copy failed');
}

/**
 * Copies text to the clipboard. On success shows `successText` (or a generic toast);
 * on failure opens a dialog with the text so the user can copy it by hand.
 */
export function useCopy() {
  const { message, modal } = App.useApp();
  const { t } = useTranslation('shell');
  return useCallback(
    async (text: string, successText?: string): Promise<boolean> => {
      try {
        await writeClipboard(text);
        void message.success(successText ?? t('copy.success'));
        return true;
      } catch {
        modal.info({
          title: t('copy.manualTitle'),
          width: 520,
          content: (
            <div data-testid="manual-copy">
              <Typography.Paragraph type="secondary">{t('copy.manualHint')}</Typography.Paragraph>
              <Input.TextArea
                value={text}
                readOnly
                autoSize={{ minRows: 2, maxRows: 6 }}
                onFocus={(e) => e.target.select()}
              />
            </div>
          ),
        });
        return false;
      }
    },
    [message, modal, t],
  );
}
