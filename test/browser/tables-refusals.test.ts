import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs as api, type Session } from './api-session.js';
import { pageApi, type Harness } from './harness.js';
import { ROOT, seedUsers, signIn, startPrivateHarness } from './tables-fixture.js';

const ADMIN = { username: 'tbladmin', password: 'tbl-admin-pass-1' };

/** Hovers `target` and waits for its tooltip to read `text`, then moves the pointer away. */
async function expectTooltip(page: Page, target: Locator, text: string): Promise<void> {
  await target.hover();
  const tip = page.locator('.ant-tooltip:visible', { hasText: text });
  await tip.first().waitFor();
  expect((await tip.first().textContent())?.trim()).toBe(text);
  await page.mouse.move(0, 0);
}

/**
 * Issue 18: actions the server would refuse are disabled, with a tooltip saying why: promote, demote, disable and
 * delete of the super administrator (and the rules of modules/users/admin.ts), and editing a redemption code that is
 * not unused. The server refuses them too (checked through the API).
 */
describe('refused actions are disabled with the reason', () => {
  let h: Harness;
  let root: Session;
  let userId: number;
  let adminId: number;
  let usedId: number;
  let disabledId: number;
  let unusedId: number;

  beforeAll(async () => {
    h = await startPrivateHarness();
    let user: Session;
    ({ root, user } = await seedUsers(h));
    userId = user.id;
    await api(root, 'POST', '/api/user/', { ...ADMIN, display_name: ADMIN.username, role: 10 });
    const users = await api<{ items: { id: number; username: string }[] }>(root, 'GET', '/api/user/?p=1&page_size=50');
    adminId = users.items.find((u) => u.username === ADMIN.username)!.id;
    const keys = await api<string[]>(root, 'POST', '/api/redemption/', { name: 'tbl-code', quota: 1000, count: 3 });
    const codes = await api<{ items: { id: number; key: string }[] }>(root, 'GET', '/api/redemption/?page_size=100');
    const idOf = (key: string) => codes.items.find((c) => c.key === key)!.id;
    [usedId, disabledId, unusedId] = keys.map(idOf) as [number, number, number];
    await api(user, 'POST', '/api/user/topup', { key: keys[0] });
    await api(root, 'PUT', '/api/redemption/?status_only=true', { id: disabledId, status: 2 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('disables promote, demote, disable and delete of the super administrator, and what the tier rules refuse', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await signIn(page, ROOT);
    await page.goto('/admin/users');
    await page.getByTestId(`user-row-${root.id}`).waitFor();
    for (const action of ['promote', 'demote', 'disable', 'delete']) {
      expect(await page.getByTestId(`user-action-${action}-${root.id}`).isDisabled(), action).toBe(true);
    }
    await expectTooltip(
      page,
      page.getByTestId(`user-action-delete-${root.id}-why`),
      'The super administrator cannot be promoted, demoted, disabled or deleted',
    );
    // An ordinary user can be promoted but not demoted; an administrator the other way round.
    expect(await page.getByTestId(`user-action-promote-${userId}`).isEnabled()).toBe(true);
    expect(await page.getByTestId(`user-action-demote-${userId}`).isDisabled()).toBe(true);
    await expectTooltip(
      page,
      page.getByTestId(`user-action-demote-${userId}-why`),
      'The user is already an ordinary user',
    );
    expect(await page.getByTestId(`user-action-promote-${adminId}`).isDisabled()).toBe(true);
    expect(await page.getByTestId(`user-action-demote-${adminId}`).isEnabled()).toBe(true);
    await page.getByTestId(`user-action-delete-${root.id}-why`).hover();
    await h.shot(page, 'tables-refused-root');
    await page.mouse.move(0, 0);
    // The server refuses the same actions.
    for (const action of ['promote', 'demote', 'disable', 'delete']) {
      const res = await pageApi(page, 'POST', '/api/user/manage', { id: root.id, action });
      expect(res.success, action).toBe(false);
    }
    await context.close();
  });

  it('lets an administrator see that only the super administrator promotes (zh)', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'zh'));
    await signIn(page, ADMIN);
    await page.goto('/admin/users');
    await page.getByTestId(`user-row-${userId}`).waitFor();
    expect(await page.getByTestId(`user-action-promote-${userId}`).isDisabled()).toBe(true);
    await expectTooltip(page, page.getByTestId(`user-action-promote-${userId}-why`), '只有超级管理员可以提升管理员');
    expect(await page.getByTestId(`user-action-disable-${userId}`).isEnabled()).toBe(true);
    // Its own row and the super administrator's are out of reach.
    expect(await page.getByTestId(`user-action-disable-${adminId}`).isDisabled()).toBe(true);
    await expectTooltip(page, page.getByTestId(`user-action-disable-${adminId}-why`), '不能在这里管理自己的账户');
    await context.close();
  });

  it('disables editing a used or disabled redemption code with the reason; an unused one edits', async () => {
    const { context, page } = await h.newPage();
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await signIn(page, ROOT);
    await page.goto('/admin/coupons');
    await page.getByTestId(`redemption-row-${usedId}`).waitFor();
    expect(await page.getByTestId(`redemption-edit-${usedId}`).isDisabled()).toBe(true);
    expect(await page.getByTestId(`redemption-edit-${disabledId}`).isDisabled()).toBe(true);
    expect(await page.getByTestId(`redemption-edit-${unusedId}`).isEnabled()).toBe(true);
    const usedCell = page.getByTestId(`redemption-edit-${usedId}`);
    await expectTooltip(page, usedCell, 'A used code cannot be edited');
    const disabledCell = page.getByTestId(`redemption-edit-${disabledId}`);
    await expectTooltip(page, disabledCell, 'Only unused codes can be edited; enable it first');
    await disabledCell.hover();
    await h.shot(page, 'tables-refused-redemption');
    // The server refuses the edit of the used code.
    const res = await pageApi(page, 'PUT', '/api/redemption/', { id: usedId, name: 'changed' });
    expect(res.success).toBe(false);
    await context.close();
  });
});
