import type { LogEventKind } from '@tollway/shared';

/** admin_quota has one text per mode. */
type Key = Exclude<LogEventKind, 'admin_quota'> | 'admin_quota_add' | 'admin_quota_subtract' | 'admin_quota_override';
type Texts = Record<Key, string>;

const zh: Texts = {
  checkin: '每日签到：获得 {{quota}} 额度（{{amount}}）',
  redemption: '通过兑换码充值 {{amount}}（兑换码 ID {{code_id}}）',
  topup: '在线充值成功，充值额度：{{amount}}，支付金额：{{paid}}',
  admin_quota_add: '管理员 {{actor}} 增加了 {{quota}} 额度',
  admin_quota_subtract: '管理员 {{actor}} 扣除了 {{quota}} 额度',
  admin_quota_override: '管理员 {{actor}} 将余额设为 {{quota}} 额度',
  invite_bonus: '使用邀请码赠送 {{quota}} 额度',
  invite_reward: '邀请用户 {{invitee}}：获得 {{quota}} 邀请额度',
};

const en: Texts = {
  checkin: 'Daily check-in: received {{quota}} quota ({{amount}})',
  redemption: 'Top-up with redemption code {{amount}} (code id {{code_id}})',
  topup: 'Online top-up succeeded, amount: {{amount}}, paid: {{paid}}',
  admin_quota_add: 'Administrator {{actor}} added {{quota}} quota',
  admin_quota_subtract: 'Administrator {{actor}} subtracted {{quota}} quota',
  admin_quota_override: 'Administrator {{actor}} set the balance to {{quota}} quota',
  invite_bonus: 'Invite code bonus: received {{quota}} quota',
  invite_reward: 'Invited {{invitee}}: received {{quota}} invite quota',
};

/** The console's texts of account-event log rows (namespace `logEvents`), written from the row's `other.event`. */
export default { zh, en };
