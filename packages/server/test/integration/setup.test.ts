import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ROOT, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { expectRefused } from '../support/refusal.js';

describe.each(dialects)('first-run setup on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(dialect);
  });
  afterAll(async () => t?.close());

  it('reports the state, creates the root user once under concurrency, and refuses a second setup', async () => {
    const c = new Client(t.app);
    const before = await c.call<{ status: boolean; root_init: boolean; database_type: string }>('GET', '/api/setup');
    expect(before.body.data).toEqual({ status: false, root_init: false, database_type: dialect });
    const status = await c.call<{ setup: boolean }>('GET', '/api/status');
    expect(status.body.data!.setup).toBe(false);

    const bad = await c.call('POST', '/api/setup', { ...ROOT, confirmPassword: 'different-pass' });
    expectRefused(bad);
    expect(bad.body.message).toContain('two passwords do not match');

    const attempts = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        c.call('POST', '/api/setup', {
          username: `root${i}`,
          password: ROOT.password,
          confirmPassword: ROOT.password,
          SelfUseModeEnabled: true,
        }),
      ),
    );
    expect(attempts.filter((a) => a.body.success)).toHaveLength(1);
    expect(attempts.filter((a) => a.status === 200 && !a.body.success)).toHaveLength(4);

    const after = await c.call<{ status: boolean; root_init: boolean }>('GET', '/api/setup');
    expect(after.body.data).toMatchObject({ status: true, root_init: true });
    const roots = await t.database.db.kysely.selectFrom('users').select(['username', 'role']).execute();
    expect(roots).toHaveLength(1);
    expect(roots[0]!.role).toBe(100);
    const st = await c.call<{ setup: boolean; self_use_mode_enabled: boolean }>('GET', '/api/status');
    expect(st.body.data).toMatchObject({ setup: true, self_use_mode_enabled: true });

    const again = await c.call('POST', '/api/setup', { ...ROOT, confirmPassword: ROOT.password });
    expectRefused(again);
    expect(again.body).toMatchObject({ success: false, message: 'the system is already initialized' });
  });
});
