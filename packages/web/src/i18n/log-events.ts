import type { LogEventKind, TaskFailReason } from '@tollway/shared';

/** admin_quota has one text per mode; a refunded task's reason, when the gateway gave it, one per code. */
type Key =
  | Exclude<LogEventKind, 'admin_quota'>
  | 'admin_quota_add'
  | 'admin_quota_subtract'
  | 'admin_quota_override'
  | `task_reason_${TaskFailReason}`;
type Texts = Record<Key, string>;

const zh: Texts = {
  checkin: '每日签到：获得 {{quota}} 额度（{{amount}}）',
  redemption: '通过兑换码充值 {{amount}}（兑换码 ID {{code_id}}）',
  topup: '在线充值成功，充值额度：{{amount}}，支付金额：{{paid}}',
  admin_quota_add: '管理员 {{actor}} 增加了 {{quota}} 额度',
  admin_quota_subtract: '管理员 {{actor}} 扣除了 {{quota}} 额度',
  admin_quota_override: '管理员 {{actor}} 将余额设为 {{quota}} 额度',
  invite_bonus: '使用邀请码赠送 {{quota}} 额度（{{amount}}）',
  invite_reward: '邀请用户 {{invitee}}：获得 {{quota}} 邀请额度（{{amount}}）',
  task_submit: '提交任务 {{action}}：{{task_id}}',
  task_refund: '任务 {{action}} {{task_id}} 失败（{{reason}}），已退还 {{quota}} 额度',
  task_reason_timeout: '任务超时',
  task_reason_interrupted: '提交过程被中断',
  task_reason_resent: '中断后重新退款',
  task_reason_failed: '上游未说明原因',
  unsettled_call: '按预扣额度计费：服务器在此次调用结算前停止了',
  no_channel: '分组 {{group}} 中没有可用于模型 {{model}} 的渠道',
  upstream_failed: '上游请求失败',
  upstream_error: '上游出错（HTTP {{status}}）：{{message}}',
};

const en: Texts = {
  checkin: 'Daily check-in: received {{quota}} quota ({{amount}})',
  redemption: 'Top-up with redemption code {{amount}} (code id {{code_id}})',
  topup: 'Online top-up succeeded, amount: {{amount}}, paid: {{paid}}',
  admin_quota_add: 'Administrator {{actor}} added {{quota}} quota',
  admin_quota_subtract: 'Administrator {{actor}} subtracted {{quota}} quota',
  admin_quota_override: 'Administrator {{actor}} set the balance to {{quota}} quota',
  invite_bonus: 'Invite code bonus: received {{quota}} quota ({{amount}})',
  invite_reward: 'Invited {{invitee}}: received {{quota}} invite quota ({{amount}})',
  task_submit: 'Task {{action}} submitted: {{task_id}}',
  task_refund: 'Task {{action}} {{task_id}} failed ({{reason}}): {{quota}} quota refunded',
  task_reason_timeout: 'the task timed out',
  task_reason_interrupted: 'the submission was interrupted',
  task_reason_resent: 'refund sent again after an interruption',
  task_reason_failed: 'the upstream gave no reason',
  unsettled_call: 'Billed at its reservation: the server stopped before this call was settled',
  no_channel: 'No available channel for model {{model}} in group {{group}}',
  upstream_failed: 'Upstream request failed',
  upstream_error: 'Upstream error (HTTP {{status}}): {{message}}',
};

/** The console's texts of log rows written from their `other.event` (namespace `logEvents`). */
export default { zh, en };
