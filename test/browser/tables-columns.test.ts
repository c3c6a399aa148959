import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../packages/server/src/db/sqlite-driver.js';
import type { MockUpstream } from '../../packages/server/test/support/mock-upstream.js';
import { apiAs as api, type Session } from './api-session.js';
import type { Harness } from './harness.js';
import {
  openAs,
  openColumnSettings,
  ROOT,
  seedTables,
  seedUsers,
  VIEWPORTS,
  type Lang,
  startPrivateHarness,
} from './tables-fixture.js';

// better-sqlite3 of the line that runs on this Node.js (drawing and task rows are written as the relay's poller would).
const Database = await loadSqliteDriver();

type State = Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>;

/** How many pixels the table's scroll box scrolls sideways (0: everything fits). */
const sideScroll = (page: Page) =>
  page
    .locator('.ant-table-content')
    .first()
    .evaluate((el) => el.scrollWidth - el.clientWidth);

/** The on-screen box of a header cell (by column key) and of the table's scroll box. */
async function headerBox(page: Page, key: string) {
  const cell = await page.locator(`th[data-col="${key}"]`).first().boundingBox();
  const box = await page.locator('.ant-table-content').first().boundingBox();
  return { cell: cell!, box: box! };
}

/** Log columns that show at every desktop width (the retry column too when a page has one). */
const LOG_MAIN_COLUMNS = ['time', 'username', 'token', 'model', 'tokens', 'quota', 'details'];

/** Texts under `selector` that are cut (an ellipsis): wider, or with clamped lines taller, than their box. */
const cutTexts = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((els) =>
      els
        .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
        .map((el) => el.textContent),
    );

/** The log type tag of a call ("Consumption" is the longest label a page of calls shows). */
const CONSUME_LABEL = { zh: '消费', en: 'Consumption' };

/** The document is no wider than the viewport: nothing scrolls sideways. */
const pageOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** A square image of one colour (a drawing's or a song's cover). */
const svg = (fill: string) =>
  `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96"><rect width="96" height="96" fill="${fill}"/></svg>`).toString('base64')}`;

/**
 * Drawing and music/video task rows of `userId`, written straight into the database as the relay's poller would:
 * a finished drawing with its image, a refused one with a long reason, a finished song and a running video.
 */
function seedTasks(dbPath: string, userId: number, baseUrl: string) {
  const db = new Database(dbPath);
  const now = Math.floor(Date.now() / 1000);
  const mj = db.prepare(
    "INSERT INTO midjourneys (code, user_id, action, mj_id, prompt, prompt_en, description, submit_time, start_time, finish_time, image_url, status, progress, fail_reason, channel_id, quota) VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, 3, 50000)",
  );
  mj.run(
    1,
    userId,
    'IMAGINE',
    'mj-1733412345678901',
    '一只在雨夜霓虹街头散步的橘猫，电影感',
    'an orange cat walking down a neon street on a rainy night, cinematic',
    now - 900,
    now - 899,
    now - 860,
    svg('#2563eb'),
    'SUCCESS',
    '100%',
    '',
  );
  mj.run(
    1,
    userId,
    'IMAGINE',
    'mj-1733412345678902',
    'a banned prompt',
    'a banned prompt',
    now - 70,
    now - 69,
    now - 60,
    '',
    'FAILURE',
    '100%',
    'Midjourney refused the prompt: banned words were found in it (rule 7 of the community guidelines).',
  );
  const task = db.prepare(
    'INSERT INTO tasks (task_id, platform, user_id, channel_id, quota, action, status, fail_reason, submit_time, start_time, finish_time, progress, data) VALUES (?, ?, ?, 5, 20000, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // The task log shows today's tasks by default: none before midnight.
  const today = new Date().setHours(0, 0, 0, 0) / 1000;
  const at = (ago: number) => Math.max(now - ago, today + 1);
  const songs = JSON.stringify([
    {
      id: 's1',
      title: 'Night drive along the coast',
      audio_url: `${baseUrl}/night-drive.wav`,
      image_url: svg('#9333ea'),
      status: 'complete',
    },
  ]);
  task.run(
    'suno-7f3a9c2e-5b1d-4e8a-9c0f-2d6b8e1a4c3f',
    'suno',
    userId,
    'MUSIC',
    'SUCCESS',
    '',
    at(300),
    at(299),
    now,
    '100%',
    songs,
  );
  task.run('kling-830054', 'kling', userId, 'generate', 'IN_PROGRESS', '', at(60), at(59), 0, '30%', '');
  db.close();
}

/** What a card must be on a phone: as wide as the list, each value beside its label, its buttons inside it. */
async function expectCard(page: Page, rowSelector: string, name: string) {
  const row = page.locator(rowSelector).first();
  await row.waitFor();
  expect(await page.locator('.tw-cards').count(), name).toBe(1);
  expect(await pageOverflow(page), name).toBeLessThanOrEqual(0);
  const card = (await row.boundingBox())!;
  expect(card.width, name).toBeGreaterThan(VIEWPORTS.phone.width * 0.7);
  // Every value line spans the card (no one-character-wide column) and shows its label.
  const cells = await row.locator('td[data-label]').evaluateAll((tds) =>
    tds.map((td) => ({
      label: td.getAttribute('data-label'),
      before: getComputedStyle(td, '::before').content,
      width: td.getBoundingClientRect().width,
    })),
  );
  expect(cells.length, name).toBeGreaterThan(2);
  for (const c of cells) {
    expect(c.before, `${name} ${c.label}`).toBe(JSON.stringify(c.label));
    expect(c.width, `${name} ${c.label}`).toBeGreaterThan(card.width * 0.8);
  }
  // Buttons and switches lie inside the card: nothing cut off or pushed out.
  const controls = await row
    .locator('button, .ant-switch, audio')
    .evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((r) => ({ left: r.left, right: r.right })));
  for (const b of controls) {
    expect(b.left, name).toBeGreaterThanOrEqual(card.x - 1);
    expect(b.right, name).toBeLessThanOrEqual(card.x + card.width + 1);
  }
  return row;
}

/**
 * Issue 18 "tables that fit", in Chromium with real data: at 1440 px the channel table shows weight and group
 * beside (not under) the pinned actions and the log table shows tokens, cost, IP and details without sideways
 * scrolling; column choices persist; phones get cards. Screenshots at 1440, 1920 and on a phone, zh and en.
 */
describe('tables that fit 1280–1920 px and phones', () => {
  let h: Harness;
  let mock: MockUpstream;
  let root: Session;
  let dir: string;
  const state: State = new Map();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-tables-db-'));
    const dbPath = path.join(dir, 'tollway.db');
    h = await startPrivateHarness({ SQLITE_PATH: dbPath });
    ({ root } = await seedUsers(h));
    mock = await seedTables(h, root);
    // A message for the message list's phone cards.
    await api(root, 'POST', '/api/admin/messages', {
      title: 'Maintenance window on Sunday night',
      content: 'Short downtime.',
      format: 'markdown',
      user_ids: [root.id],
    });
    // A limited token with an expiry, a redemption code, drawing and task rows for their phone cards.
    await api(root, 'POST', '/api/token/', {
      name: 'nightly-batch-jobs',
      remain_quota: 250_000,
      expired_time: Math.floor(Date.now() / 1000) + 30 * 86_400,
    });
    await api(root, 'POST', '/api/redemption/', { name: 'spring-promo-gift', quota: 500_000 });
    seedTasks(dbPath, root.id, h.baseUrl);
  });
  afterAll(async () => {
    await h?.close();
    await mock?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const lang of ['zh', 'en'] as Lang[]) {
    it(`channel table at 1440 and 1920 px (${lang}): weight and group beside the actions, no sideways scroll`, async () => {
      const { context, page } = await openAs(h, ROOT, lang, VIEWPORTS.desktop, state);
      await page.goto('/admin/channels');
      await page.locator('[data-testid^="channel-row-"]').first().waitFor();
      await h.shot(page, `tables-channels-1440-${lang}`);
      expect(await sideScroll(page)).toBeLessThanOrEqual(0);
      const actions = (await headerBox(page, 'actions')).cell;
      for (const key of ['priority', 'weight', 'group']) {
        const { cell, box } = await headerBox(page, key);
        expect(cell.x + cell.width, key).toBeLessThanOrEqual(actions.x + 1);
        expect(cell.x, key).toBeGreaterThanOrEqual(box.x - 1);
      }
      await page.setViewportSize(VIEWPORTS.wide);
      await expect.poll(() => sideScroll(page)).toBeLessThanOrEqual(0);
      // The spare room of a wide screen goes to the names first: the long channel names show whole.
      await expect
        .poll(() => cutTexts(page, '[data-testid^="channel-row-"] .ant-typography-ellipsis:has(strong)'))
        .toEqual([]);
      await h.shot(page, `tables-channels-1920-${lang}`);
      await context.close();
    });

    it(`log table at 1440 and 1920 px (${lang}): tokens, cost, IP and details without sideways scroll`, async () => {
      const { context, page } = await openAs(h, ROOT, lang, VIEWPORTS.desktop, state);
      await page.goto('/app/logs/api-usage');
      await page.locator('[data-testid^="log-row-"]').first().waitFor();
      await h.shot(page, `tables-logs-1440-${lang}`);
      expect(await sideScroll(page)).toBeLessThanOrEqual(0);
      for (const key of ['tokens', 'quota', 'ip', 'details']) {
        const { cell, box } = await headerBox(page, key);
        expect(cell.x + cell.width, key).toBeLessThanOrEqual(box.x + box.width + 1);
        expect(cell.width, key).toBeGreaterThan(60);
      }
      // The consume row shows its token counts and its caller's IP.
      const row = page.locator('[data-testid^="log-row-"]').first();
      expect(await row.textContent()).toContain('123456');
      expect(await row.textContent()).toContain('127.0.0.1');
      // Up to 1440 px the room left over goes to the details: their text (two lines at most) is not cut.
      const details = '[data-testid^="log-row-"] .ant-typography-ellipsis-multiple-line';
      expect(await page.locator(details).count()).toBeGreaterThan(0);
      expect(await cutTexts(page, details)).toEqual([]);
      await page.setViewportSize(VIEWPORTS.wide);
      await expect.poll(() => sideScroll(page)).toBeLessThanOrEqual(0);
      // At 1920 px the spare room goes to the cut values first: type, token and group tags show whole.
      await expect.poll(() => cutTexts(page, '[data-testid^="log-row-"] .tw-log-ellipsis-tag')).toEqual([]);
      expect(await page.locator(`.tw-log-ellipsis-tag[title="${CONSUME_LABEL[lang]}"]`).count()).toBeGreaterThan(0);
      await h.shot(page, `tables-logs-1920-${lang}`);
      await context.close();
    });

    it(`log table at 1280, 1366, 1440 and 1920 px (${lang}): main columns shown, no sideways scroll, left-out columns named`, async () => {
      const { context, page } = await openAs(h, ROOT, lang, { width: 1280, height: 800 }, state);
      await page.goto('/app/logs/api-usage');
      await page.locator('[data-testid^="log-row-"]').first().waitFor();
      for (const width of [1280, 1366, 1440, 1920]) {
        await page.setViewportSize({ width, height: 900 });
        await expect.poll(() => sideScroll(page), { message: `${width}` }).toBeLessThanOrEqual(0);
        expect(await pageOverflow(page), `${width}`).toBeLessThanOrEqual(0);
        for (const key of LOG_MAIN_COLUMNS) {
          const { cell, box } = await headerBox(page, key);
          expect(cell.x, `${width} ${key}`).toBeGreaterThanOrEqual(box.x - 1);
          expect(cell.x + cell.width, `${width} ${key}`).toBeLessThanOrEqual(box.x + box.width + 1);
        }
        // Whatever is left out is named under the table; at 1920 px every column shows.
        const hint = page.getByTestId('logs-folded');
        const left = (await hint.count()) ? ((await hint.getAttribute('data-keys')) ?? '').split(',') : [];
        for (const key of left) expect(await page.locator(`th[data-col="${key}"]`).count(), `${width} ${key}`).toBe(0);
        if (width === 1280) {
          expect(left[0]).toBe('ip');
          expect(await hint.textContent()).toContain('IP');
        }
        if (width === 1920) expect(left).toEqual([]);
        await h.shot(page, `tables-logs-fit-${width}-${lang}`);
      }
      await context.close();
    });

    it(`phone cards for channels, logs, users and messages (${lang}): no sideways scroll, titles readable`, async () => {
      const { context, page } = await openAs(h, ROOT, lang, VIEWPORTS.phone, state);
      const lists = [
        { url: '/admin/channels', row: '[data-testid^="channel-row-"]', name: 'channels' },
        { url: '/app/logs/api-usage', row: '[data-testid^="log-row-"]', name: 'logs' },
        { url: '/admin/users', row: '[data-testid^="user-row-"]', name: 'users' },
        { url: '/admin/messages', row: '.ant-table-row', name: 'messages' },
      ];
      for (const l of lists) {
        await page.goto(l.url);
        await expectCard(page, l.row, l.name);
        await h.shot(page, `tables-${l.name}-phone-${lang}`);
      }
      await context.close();
    });

    it(`phone cards for tokens, redemption codes, drawing and task logs (${lang}): no sideways scroll, actions usable`, async () => {
      const { context, page } = await openAs(h, ROOT, lang, VIEWPORTS.phone, state);
      const lists = [
        { url: '/app/tokens', row: '[data-testid^="token-row-"]', name: 'tokens' },
        { url: '/admin/coupons', row: '[data-testid^="redemption-row-"]', name: 'redemptions' },
        { url: '/app/logs/drawing', row: '[data-testid="drawing-tasks-table"] tr.ant-table-row', name: 'drawing' },
        { url: '/app/logs/tasks', row: '[data-testid="music-tasks-table"] tr.ant-table-row', name: 'tasks' },
      ];
      for (const l of lists) {
        await page.goto(l.url);
        const row = await expectCard(page, l.row, l.name);
        if (l.name === 'tokens' || l.name === 'redemptions') {
          // The row actions: the switch, edit and delete buttons are there and can be clicked.
          const prefix = l.name === 'tokens' ? 'token' : 'redemption';
          for (const action of ['toggle', 'edit', 'delete'])
            expect(await row.locator(`[data-testid^="${prefix}-${action}-"]`).isVisible(), `${l.name} ${action}`).toBe(
              true,
            );
        }
        await h.shot(page, `tables-${l.name}-phone-${lang}`);
      }
      // The tasks lists show every seeded row.
      await page.goto('/app/logs/drawing');
      await expect.poll(() => page.locator('[data-testid="drawing-tasks-table"] tr.ant-table-row').count()).toBe(2);
      await context.close();
    });
  }

  it('remembers the chosen columns across visits (local storage)', async () => {
    const { context, page } = await openAs(h, ROOT, 'en', VIEWPORTS.desktop, state);
    await page.goto('/app/logs/api-usage');
    await page.locator('[data-testid^="log-row-"]').first().waitFor();
    await openColumnSettings(page, 'logs-columns');
    await page.getByTestId('logs-columns-ip').click();
    await expect.poll(() => page.locator('th[data-col="ip"]').count()).toBe(0);
    await page.goto('/admin/channels');
    await page.locator('[data-testid^="channel-row-"]').first().waitFor();
    await openColumnSettings(page, 'channels-columns');
    await page.getByTestId('channels-columns-health').click();
    await expect.poll(() => page.locator('th[data-col="health"]').count()).toBe(0);

    await page.reload();
    await page.locator('[data-testid^="channel-row-"]').first().waitFor();
    expect(await page.locator('th[data-col="health"]').count()).toBe(0);
    expect(await page.locator('th[data-col="weight"]').count()).toBe(1);
    await page.goto('/app/logs/api-usage');
    await page.locator('[data-testid^="log-row-"]').first().waitFor();
    expect(await page.locator('th[data-col="ip"]').count()).toBe(0);
    expect(await page.locator('th[data-col="details"]').count()).toBe(1);
    // Defaults bring every column back.
    await openColumnSettings(page, 'logs-columns');
    await page.getByTestId('logs-columns-reset').click();
    await expect.poll(() => page.locator('th[data-col="ip"]').count()).toBe(1);
    await context.close();
  });
});
