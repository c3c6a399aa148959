import type { NewUser } from '../../src/modules/users/store.js';

/** A users row with every column at its plain default, written straight to the table by tests; `over` sets the rest. */
export function userRow(username: string, over: Partial<NewUser> = {}): NewUser {
  return {
    username,
    password: 'x',
    display_name: username,
    role: 1,
    status: 1,
    email: '',
    github_id: '',
    oidc_id: '',
    wechat_id: '',
    telegram_id: '',
    linux_do_id: '',
    access_token: null,
    quota: 0,
    used_quota: 0,
    request_count: 0,
    group: 'default',
    aff_code: `a${username}`.slice(0, 8),
    aff_count: 0,
    aff_quota: 0,
    aff_history: 0,
    inviter_id: 0,
    setting: '',
    remark: '',
    created_at: 0,
    deleted_at: null,
    ...over,
  };
}
