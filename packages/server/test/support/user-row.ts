import { newUserRow, type NewUser } from '../../src/modules/users/store.js';

/** A users row with every column at its plain default, written straight to the table by tests; `over` sets the rest. */
export function userRow(username: string, over: Partial<NewUser> = {}): NewUser {
  return newUserRow({
    username,
    password: 'x',
    display_name: username,
    aff_code: `a${username}`.slice(0, 8),
    created_at: 0,
    ...over,
  });
}
