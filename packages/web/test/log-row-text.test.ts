/** @vitest-environment jsdom */
import type { LogEvent } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import i18n from '../src/i18n';
import { logRowText } from '../src/lib/server-text';

const row = (event: LogEvent, content = 'english content') => ({ content, other: JSON.stringify({ event }) });

describe("log rows written from their event in the viewer's language", () => {
  afterAll(() => i18n.changeLanguage('zh'));

  it.each([
    [
      'zh',
      '任务 IMAGINE mj-1 失败（任务超时），已退还 500 额度',
      '任务 IMAGINE mj-2 失败（banned prompt），已退还 7 额度',
    ],
    [
      'en',
      'Task IMAGINE mj-1 failed (the task timed out): 500 quota refunded',
      'Task IMAGINE mj-2 failed (banned prompt): 7 quota refunded',
    ],
  ] as const)(
    'a task refund in %s: the gateway reason by its code, an upstream reason as given',
    async (lang, coded, upstream) => {
      await i18n.changeLanguage(lang);
      expect(
        logRowText(
          row({ kind: 'task_refund', task_id: 'mj-1', action: 'IMAGINE', quota: 500, reason_code: 'timeout' }),
        ),
      ).toBe(coded);
      expect(
        logRowText(row({ kind: 'task_refund', task_id: 'mj-2', action: 'IMAGINE', quota: 7, reason: 'banned prompt' })),
      ).toBe(upstream);
    },
  );

  it('invite rows show their quota in the currency the console shows', async () => {
    const dollars = (n: number) => `$${(n / 500_000).toFixed(2)}`;
    await i18n.changeLanguage('zh');
    expect(logRowText(row({ kind: 'invite_reward', quota: 250_000, invitee: 'amy' }), dollars)).toBe(
      '邀请用户 amy：获得 250000 邀请额度（$0.50）',
    );
    await i18n.changeLanguage('en');
    expect(logRowText(row({ kind: 'invite_bonus', quota: 100_000 }), dollars)).toBe(
      'Invite code bonus: received 100000 quota ($0.20)',
    );
    // An amount the server rendered (check-in) is kept.
    expect(logRowText(row({ kind: 'checkin', quota: 1000, amount: '$0.002000' }), dollars)).toBe(
      'Daily check-in: received 1000 quota ($0.002000)',
    );
  });

  it('task submits, calls billed on recovery and the gateway error rows; an upstream error keeps its text (the content)', async () => {
    await i18n.changeLanguage('zh');
    expect(logRowText(row({ kind: 'task_submit', task_id: 'v-1', action: 'generate' }))).toBe('提交任务 generate：v-1');
    expect(logRowText(row({ kind: 'unsettled_call' }))).toBe('按预扣额度计费：服务器在此次调用结算前停止了');
    expect(logRowText(row({ kind: 'no_channel', model: 'm', group: 'vip' }))).toBe(
      '分组 vip 中没有可用于模型 m 的渠道',
    );
    expect(logRowText(row({ kind: 'upstream_failed' }, 'upstream request failed'))).toBe('上游请求失败');
    expect(logRowText(row({ kind: 'upstream_error', status: 429 }, 'slow down'))).toBe(
      '上游出错（HTTP 429）：slow down',
    );
    // A row without an event (or one this console does not know) shows its content.
    expect(logRowText({ content: 'plain', other: '{}' })).toBe('plain');
    expect(logRowText({ content: 'plain', other: JSON.stringify({ event: { kind: 'from_the_future' } }) })).toBe(
      'plain',
    );
  });
});
