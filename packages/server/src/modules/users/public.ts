import { periodLimitValues, type UserPublic } from '@tollway/shared';
import { maskSettingSecret } from '../../lib/setting-secret.js';
import type { UserRow } from './store.js';

/** The user as every response shows it: never the password, never the access token, the webhook secret masked. */
export function toPublicUser(u: UserRow): UserPublic {
  return {
    id: u.id,
    username: u.username,
    display_name: u.display_name,
    password: '',
    group: u.group,
    role: u.role,
    status: u.status,
    quota: Number(u.quota),
    used_quota: Number(u.used_quota),
    request_count: Number(u.request_count),
    aff_code: u.aff_code,
    aff_count: u.aff_count,
    aff_quota: Number(u.aff_quota),
    aff_history_quota: Number(u.aff_history),
    inviter_id: u.inviter_id,
    email: u.email,
    github_id: u.github_id,
    oidc_id: u.oidc_id,
    wechat_id: u.wechat_id,
    telegram_id: u.telegram_id,
    linux_do_id: u.linux_do_id,
    setting: maskSettingSecret(u.setting),
    remark: u.remark,
    rpm_limit: Number(u.rpm_limit),
    tpm_limit: Number(u.tpm_limit),
    ...periodLimitValues(u),
    created_at: Number(u.created_at),
    DeletedAt: u.deleted_at,
  };
}
