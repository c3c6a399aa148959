import type { Resolver } from 'react-hook-form';

/** The login form's values (the username is trimmed before sending). */
export interface LoginValues {
  username: string;
  password: string;
}

/**
 * Login: both fields required, one shared message (an i18n key) under the first empty field. A plain resolver,
 * not a zod schema: the login page loads without the schema library.
 */
export const loginResolver: Resolver<LoginValues> = (raw) => {
  const values = { username: raw.username.trim(), password: raw.password };
  const missing = !values.username ? 'username' : !values.password ? 'password' : undefined;
  if (!missing) return { values, errors: {} };
  return { values: {}, errors: { [missing]: { type: 'required', message: 'auth:login.required' } } };
};

export const DEFAULT_ROOT = { username: 'root', password: '123456' } as const;
