import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSqliteDriver } from '../../packages/server/src/db/sqlite-driver.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropSession,
  login,
  pageApi,
  SCREENSHOTS,
  setOptions,
  startHarness,
  type Harness,
  privateConsole,
} from './harness.js';

// better-sqlite3 of the line that runs on this Node.js.
const Database = await loadSqliteDriver();

const ROOT = { username: 'rootadmin', password: 'root-pass-123' };
const USER = { username: 'carol', password: 'carol-pass-123' };
/** A tiny image for the drawing preview (an orange square). */
const IMAGE = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#f97316"/></svg>').toString('base64')}`;

/** Daily check-in, the log retention setting and the drawing/music task pages in a real browser. */
describe('check-in and task logs in Chromium', () => {
  let h: Harness;
  let page: Page;
  let dir: string;
  let userId: number;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-checkin-'));
    const web = privateConsole(dir);
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: web });
    ({ page } = await h.newPage());
    const setup = await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    expect((await setup.json()).success).toBe(true);
  });
  afterAll(async () => {
    await h?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('root turns check-in on with a $0.50 reward and sets log retention in the settings', async () => {
    await login(page, ROOT);
    await page.goto('/admin/settings?tab=operation');
    const checkinSection = page.getByTestId('settings-section-checkin');
    await checkinSection.waitFor();
    await checkinSection.getByTestId('option-CheckInEnabled').click();
    await checkinSection.getByTestId('option-CheckInQuota').fill('250000');
    await page.getByTestId('settings-save-checkin').click();
    const logsSection = page.getByTestId('settings-section-logs');
    await logsSection.getByTestId('option-LogRetentionDays').fill('30');
    await page.getByTestId('settings-save-logs').click();
    await expect
      .poll(async () => {
        const opts = (await pageApi<{ key: string; value: string }[]>(page, 'GET', '/api/option/')).data ?? [];
        const get = (k: string) => opts.find((o) => o.key === k)?.value;
        return [get('CheckInEnabled'), get('CheckInQuota'), get('LogRetentionDays')];
      })
      .toEqual(['true', '250000', '30']);
    await logsSection.screenshot({ path: path.join(SCREENSHOTS, 'checkin-01-settings-logs.png') });
    const created = await pageApi<{ id: number }>(page, 'POST', '/api/user/', {
      username: USER.username,
      password: USER.password,
      display_name: 'Carol',
    });
    expect(created.success).toBe(true);
    userId = created.data!.id;
    expect((await pageApi(page, 'PUT', '/api/user/', { id: userId, quota: 500000 })).success).toBe(true);
    await setOptions(page, [
      ['DrawingEnabled', 'true'],
      ['TaskEnabled', 'true'],
      ['AffEnabled', 'true'],
      ['QuotaForInviter', '100000'],
      ['QuotaForInvitee', '50000'],
    ]);
  });

  it('the user checks in on the personal page: the button turns to checked in and the balance grows by the reward', async () => {
    await dropSession(page);
    await login(page, USER);
    await page.goto('/app/me');
    const card = page.getByTestId('me-check-in');
    await card.waitFor();
    await expect.poll(() => page.getByTestId('me-quota').textContent()).toContain('$1.00');
    await expect.poll(() => page.getByTestId('me-check-in-reward').textContent()).toMatch(/\$0\.50/);
    const button = page.getByTestId('me-check-in-button');
    expect(await button.isEnabled()).toBe(true);
    await h.shot(page, 'checkin-02-before');
    await button.click();
    await page
      .getByText(/签到成功|Checked in, you received/)
      .first()
      .waitFor();
    await expect.poll(() => page.getByTestId('me-quota').textContent()).toContain('$1.50');
    await expect.poll(() => button.isDisabled()).toBe(true);
    expect(await button.textContent()).toMatch(/今日已签到|Checked in today/);
    expect(await page.getByTestId('me-check-in-today').textContent()).toMatch(/\$0\.50/);
    await h.shot(page, 'checkin-03-after');
    const self = await pageApi<{ quota: number }>(page, 'GET', '/api/user/self');
    expect(self.data!.quota).toBe(750000);
    // A reload still knows today's check-in; a second attempt is refused by the server.
    await page.reload();
    await expect.poll(() => page.getByTestId('me-check-in-button').isDisabled()).toBe(true);
    const again = await pageApi(page, 'POST', '/api/user/check_in', {});
    expect(again).toMatchObject({ success: false, message: 'you have already checked in today' });
  });

  it('an invitee registering with the invite link shows in the invite card (count and reward)', async () => {
    const code = (await pageApi<string>(page, 'GET', '/api/user/aff')).data!;
    expect(await page.getByTestId('me-invite-link').inputValue()).toContain(`/register?aff=${code}`);
    const reg = await fetch(`${h.baseUrl}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'dave', password: 'dave-pass-123', password2: 'dave-pass-123', aff_code: code }),
    });
    expect((await reg.json()).success).toBe(true);
    await page.reload();
    await expect.poll(() => page.getByTestId('me-aff-count').textContent()).toContain('1');
    expect(await page.getByTestId('me-aff-quota').textContent()).toContain('$0.20');
    expect(await page.getByTestId('me-aff-history').textContent()).toContain('$0.20');
    await page.getByTestId('me-invite').screenshot({ path: path.join(SCREENSHOTS, 'checkin-03b-invite-card.png') });
  });

  it('the check-in shows in the usage logs as a check-in record', async () => {
    await page.goto('/app/logs/api-usage');
    await page.getByTestId('logs-table').waitFor();
    await expect.poll(() => page.getByTestId('logs-table').textContent()).toMatch(/签到|Check-in/);
  });

  it('drawing and music task pages list the own tasks with statuses, colours and an image preview', async () => {
    const now = Math.floor(Date.now() / 1000);
    const db = new Database(path.join(dir, 'tollway.db'));
    try {
      const mj = db.prepare(
        "INSERT INTO midjourneys (code, user_id, action, mj_id, prompt, prompt_en, description, submit_time, start_time, finish_time, image_url, status, progress, fail_reason, channel_id, quota) VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, 1, 5000)",
      );
      mj.run(
        1,
        userId,
        'IMAGINE',
        'mj-ok-1',
        'an orange square',
        'an orange square',
        now - 600,
        now - 598,
        now - 570,
        IMAGE,
        'SUCCESS',
        '100%',
        '',
      );
      mj.run(
        1,
        userId,
        'UPSCALE',
        'mj-slow-2',
        'a slow one',
        'a slow one',
        now - 500,
        now - 499,
        now - 380,
        '',
        'FAILURE',
        '100%',
        'upstream timeout',
      );
      mj.run(
        21,
        userId,
        'VARIATION',
        'mj-run-3',
        'in progress',
        'in progress',
        now - 60,
        now - 59,
        0,
        '',
        'IN_PROGRESS',
        '45%',
        '',
      );
      mj.run(
        1,
        1,
        'IMAGINE',
        'mj-root-4',
        'root only',
        'root only',
        now - 30,
        now - 29,
        now - 10,
        IMAGE,
        'SUCCESS',
        '100%',
        '',
      );
      const task = db.prepare(
        "INSERT INTO tasks (task_id, platform, user_id, channel_id, quota, action, status, fail_reason, submit_time, start_time, finish_time, progress, data) VALUES (?, 'suno', ?, 1, 2000, ?, ?, ?, ?, ?, ?, ?, '[]')",
      );
      task.run('tk-song-1', userId, 'MUSIC', 'SUCCESS', '', now - 300, now - 290, now - 200, '100%');
      task.run('tk-lyric-2', userId, 'LYRICS', 'QUEUED', '', now - 100, 0, 0, '0%');
      task.run('tk-fail-3', userId, 'MUSIC', '', '', now - 50, 0, 0, '');
    } finally {
      db.close();
    }

    await page.goto('/app/logs/drawing');
    const table = page.getByTestId('drawing-tasks-table');
    await table.waitFor();
    await expect.poll(async () => await table.locator('tbody tr.ant-table-row').count()).toBe(3);
    const text = (await table.textContent()) ?? '';
    expect(text).toContain('mj-ok-1');
    expect(text).not.toContain('mj-root-4');
    expect(text).toMatch(/成功|Success/);
    expect(text).toMatch(/失败|Failure/);
    expect(text).toMatch(/执行中|In progress/);
    expect(text).toContain('upstream timeout');
    // The 120 s drawing is red, the 30 s one green; the channel column is for administrators only.
    expect(await table.locator('.ant-tag-red', { hasText: /120/ }).count()).toBe(1);
    expect(await table.locator('.ant-tag-green', { hasText: /30/ }).count()).toBe(1);
    expect(text).not.toMatch(/渠道|Channel/);
    await h.shot(page, 'checkin-04-drawing-logs');
    await table.getByTestId('task-image').first().click();
    await page.locator('.ant-image-preview-img').waitFor();
    await h.shot(page, 'checkin-05-drawing-preview');
    await page.keyboard.press('Escape');

    await page.goto('/app/logs/tasks');
    const music = page.getByTestId('music-tasks-table');
    await music.waitFor();
    await expect.poll(async () => await music.locator('tbody tr.ant-table-row').count()).toBe(3);
    const mtext = (await music.textContent()) ?? '';
    expect(mtext).toMatch(/排队中|Queued/);
    expect(mtext).toMatch(/提交中|Submitting/);
    expect(mtext).toMatch(/生成歌词|Generate lyrics/);
    expect(mtext).toContain('Suno');
    await h.shot(page, 'checkin-06-music-logs');
    // The id filter narrows the list.
    await page.getByTestId('music-tasks-id').fill('tk-song-1');
    await page.getByTestId('music-tasks-search').click();
    await expect.poll(async () => await music.locator('tbody tr.ant-table-row').count()).toBe(1);
  });

  it('root sees every drawing task with the channel column', async () => {
    await dropSession(page);
    await login(page, ROOT);
    await page.goto('/app/logs/drawing');
    const table = page.getByTestId('drawing-tasks-table');
    await expect.poll(async () => await table.locator('tbody tr.ant-table-row').count()).toBe(4);
    expect(await table.textContent()).toMatch(/渠道|Channel/);
    await page.getByTestId('drawing-tasks-channel').fill('2');
    await page.getByTestId('drawing-tasks-search').click();
    await expect.poll(async () => await table.locator('tbody tr.ant-table-row').count()).toBe(0);
    await h.shot(page, 'checkin-07-drawing-admin');
  });
});
