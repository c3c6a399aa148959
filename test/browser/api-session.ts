/** A management-API session for browser tests' setup steps (Node fetch with the session cookie). */
export interface Session {
  baseUrl: string;
  cookie: string;
  id: number;
}

/** Logs in through POST /api/user/login. */
export async function loginSession(baseUrl: string, user: { username: string; password: string }): Promise<Session> {
  const res = await fetch(`${baseUrl}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  const env = (await res.json()) as { success: boolean; message: string; data: { id: number } };
  if (!env.success) throw new Error(`login ${user.username}: ${env.message}`);
  return { baseUrl, cookie: res.headers.get('set-cookie')!.split(';')[0]!, id: env.data.id };
}

/** Sets the system up with `root` as its super administrator (POST /api/setup) and logs in as root. */
export async function setUpRoot(baseUrl: string, root: { username: string; password: string }): Promise<Session> {
  await fetch(`${baseUrl}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...root, confirmPassword: root.password }),
  });
  return loginSession(baseUrl, root);
}

/** Calls the management API as the session's user; throws with the server's message on success:false. */
export async function apiAs<T>(s: Session, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: {
      cookie: s.cookie,
      'new-api-user': String(s.id),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const env = (await res.json()) as { success: boolean; message: string; data: T };
  if (!env.success) throw new Error(`${method} ${path}: ${env.message}`);
  return env.data;
}
