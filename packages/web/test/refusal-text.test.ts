/** @vitest-environment jsdom */
import { ErrorCode } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import i18n from '../src/i18n';
import { refusalText } from '../src/lib/refusal-text';

describe("refusals in the viewer's language", () => {
  afterAll(() => i18n.changeLanguage('zh'));

  // As the server answers a webhook address the fetch settings refuse: the English reason, and the rule's code.
  const blocked = {
    message: 'webhook_url is not allowed: port 8080 is not allowed by the fetch settings',
    code: ErrorCode.WebhookUrlBlocked,
    params: {
      reason: 'port 8080 is not allowed by the fetch settings',
      reason_code: ErrorCode.OutboundPortRefused,
      port: 8080,
    },
  };

  it.each([
    ['zh', '不允许使用此 webhook_url：抓取设置不允许端口 8080'],
    ['en', 'This webhook_url is not allowed: port 8080 is not allowed by the fetch settings'],
  ] as const)('a coded reason inside a refusal is worded too (%s)', async (lang, text) => {
    await i18n.changeLanguage(lang);
    expect(await refusalText(blocked)).toBe(text);
  });

  it("a reason without a code is shown as the server gave it; a refusal without a code is the server's message", async () => {
    await i18n.changeLanguage('zh');
    expect(await refusalText({ ...blocked, params: { reason: 'something else' } })).toBe(
      '不允许使用此 webhook_url：something else',
    );
    expect(await refusalText({ message: 'plain English' })).toBe('plain English');
  });
});
