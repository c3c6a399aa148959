import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadSqliteDriver } from '../../packages/server/src/db/sqlite-driver.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, loginSession, type Session } from './api-session.js';
import { login, startHarness, type Harness } from './harness.js';

// better-sqlite3 of the line that runs on this Node.js.
const Database = await loadSqliteDriver();

const ROOT = { username: 'tlroot', password: 'tl-root-pass-1' };
const USER = { username: 'tluser', password: 'tl-user-pass-1' };
/** A square image of one colour, large enough to be seen in the preview. */
const svg = (fill: string) =>
  `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="480" height="480"><rect width="480" height="480" fill="${fill}"/><circle cx="240" cy="240" r="120" fill="#fff" opacity="0.5"/></svg>`).toString('base64')}`;
/** Half a second of silence as a WAV file: a song result the audio player can load. */
function silentWav(): Buffer {
  const rate = 8000;
  const samples = rate / 2;
  const b = Buffer.alloc(44 + samples);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples, 40);
  b.fill(128, 44);
  return b;
}
/** A second and a half of VP8 video (a ball crossing a dark frame), recorded once in Chromium. */
const CLIP = path.resolve(import.meta.dirname, 'fixtures/task-clip.webm');
/** Where the console copy serves the song: the site's own origin. */
const MEDIA_DIR = 'test-media';
/** Kling's video on an https host of the upstream's, answered by the browser context (the CSP still applies). */
const KLING_URL = 'https://cdn.kling.example/videos/kl-done.webm';
const LONG_REASON =
  'Midjourney refused the prompt: banned words were found in it (rule 7 of the community guidelines); change the prompt and submit the task again.';
const rowsOf = (table: ReturnType<Page['getByTestId']>) => table.locator('tbody tr.ant-table-row');

/** The page's reports of loads the Content-Security-Policy refused, as Chromium logs them. */
function cspErrors(page: Page): string[] {
  const found: string[] = [];
  page.on('console', (msg) => {
    if (msg.text().includes('Content Security Policy')) found.push(msg.text());
  });
  return found;
}

/** An OpenAI-compatible video upstream on loopback: `GET /v1/videos/{id}/content` answers the clip for SORA_UPSTREAM_ID. */
const SORA_UPSTREAM_ID = 'video_up_sora_done';
const SORA_KEY = 'sk-sora-upstream';
async function startSoraUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const body = fs.readFileSync(CLIP);
  const server = http.createServer((req, res) => {
    if (req.url === `/v1/videos/${SORA_UPSTREAM_ID}/content` && req.headers.authorization === `Bearer ${SORA_KEY}`)
      return res.writeHead(200, { 'content-type': 'video/webm', 'content-length': body.length }).end(body);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The upstream's https video host, as the browser sees it. */
async function serveRemoteClip(context: BrowserContext) {
  const body = fs.readFileSync(CLIP);
  await context.route('https://cdn.kling.example/**', (route) =>
    route.fulfill({ status: 200, contentType: 'video/webm', body }),
  );
}

/** Opens a row's video player; the dialog with its <video>. */
async function openVideo(page: Page, row: ReturnType<Page['locator']>) {
  await row.getByTestId('task-video-open').click();
  const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('task-video') });
  await dialog.waitFor();
  return { dialog, video: dialog.getByTestId('task-video') };
}

/** Closes the open player; the <video> goes with it. */
async function closeVideo(page: Page) {
  await page.keyboard.press('Escape');
  await expect.poll(() => page.getByTestId('task-video').count()).toBe(0);
}

/**
 * The drawing and the music/video task logs in a real browser with tasks in every state: status tags, progress
 * bars refreshing by themselves while a task runs, thumbnails with a preview, song and video players, fail reasons
 * and the drawing duration colours; rows are written straight into the database as the relay's poller would.
 */
describe('drawing and music/video task logs in Chromium', () => {
  let h: Harness;
  let dir: string;
  let db: InstanceType<typeof Database>;
  let page: Page;
  let userId: number;
  let root: Session;
  let csp: string[];
  let soraUpstream: Awaited<ReturnType<typeof startSoraUpstream>> | undefined;
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-task-logs-'));
    // A private copy of the built console: a rebuild of packages/web/dist during the run must not remove the chunks it loads.
    const web = path.join(dir, 'web');
    fs.cpSync(path.resolve(import.meta.dirname, '../../packages/web/dist'), web, { recursive: true });
    // The song is served by the site itself (its static files are listed at start, so written first).
    fs.mkdirSync(path.join(web, MEDIA_DIR));
    fs.writeFileSync(path.join(web, MEDIA_DIR, 'night-drive.wav'), silentWav());
    h = await startHarness({ SQLITE_PATH: path.join(dir, 'tollway.db'), WEB_DIST: web });
    await fetch(`${h.baseUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ROOT, confirmPassword: ROOT.password }),
    });
    root = await loginSession(h.baseUrl, ROOT);
    const res = await fetch(`${h.baseUrl}/api/user/`, {
      method: 'POST',
      headers: { cookie: root.cookie, 'new-api-user': String(root.id), 'content-type': 'application/json' },
      body: JSON.stringify({ ...USER, display_name: USER.username }),
    });
    expect((await res.json()).success).toBe(true);
    userId = (await loginSession(h.baseUrl, USER)).id;

    db = new Database(path.join(dir, 'tollway.db'));
    const mj = db.prepare(
      "INSERT INTO midjourneys (code, user_id, action, mj_id, prompt, prompt_en, description, submit_time, start_time, finish_time, image_url, status, progress, fail_reason, channel_id, quota) VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, 3, 50000)",
    );
    mj.run(
      1,
      userId,
      'IMAGINE',
      'mj-success',
      'a blue square',
      'a blue square',
      now - 900,
      now - 899,
      now - 870,
      svg('#2563eb'),
      'SUCCESS',
      '100%',
      '',
    );
    mj.run(
      1,
      userId,
      'UPSCALE',
      'mj-slow',
      'a slow green square',
      'a slow green square',
      now - 800,
      now - 799,
      now - 700,
      svg('#16a34a'),
      'SUCCESS',
      '100%',
      '',
    );
    mj.run(
      1,
      userId,
      'VARIATION',
      'mj-running',
      'still drawing',
      'still drawing',
      now - 120,
      now - 119,
      0,
      '',
      'IN_PROGRESS',
      '45%',
      '',
    );
    mj.run(
      21,
      userId,
      'IMAGINE',
      'mj-waiting',
      'waiting in line',
      'waiting in line',
      now - 100,
      0,
      0,
      '',
      'NOT_START',
      '0%',
      '',
    );
    mj.run(
      1,
      userId,
      'BLEND',
      'mj-submitted',
      'just submitted',
      'just submitted',
      now - 90,
      0,
      0,
      '',
      'SUBMITTED',
      '',
      '',
    );
    mj.run(
      1,
      userId,
      'INPAINT',
      'mj-modal',
      'needs a region',
      'needs a region',
      now - 80,
      now - 79,
      0,
      '',
      'MODAL',
      '0%',
      '',
    );
    mj.run(
      1,
      userId,
      'IMAGINE',
      'mj-failed',
      'a banned prompt',
      'a banned prompt',
      now - 70,
      now - 69,
      now - 60,
      '',
      'FAILURE',
      '100%',
      LONG_REASON,
    );
    // A video action's result (stored by the relay beside the image).
    db.prepare(
      "UPDATE midjourneys SET video_url = 'http://127.0.0.1:9/videos/mj-slow.mp4' WHERE mj_id = 'mj-slow'",
    ).run();
    const task = db.prepare(
      'INSERT INTO tasks (task_id, platform, user_id, channel_id, quota, action, status, fail_reason, submit_time, start_time, finish_time, progress, data) VALUES (?, ?, ?, 5, 20000, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const songs = JSON.stringify([
      {
        id: 's1',
        title: 'Night drive',
        audio_url: `${h.baseUrl}/${MEDIA_DIR}/night-drive.wav`,
        image_url: svg('#9333ea'),
        status: 'complete',
      },
    ]);
    const clip = JSON.stringify({
      task_id: 'kl-done',
      task_status: 'succeed',
      task_result: { videos: [{ id: 'v1', url: KLING_URL, duration: '5' }] },
    });
    task.run('suno-done', 'suno', userId, 'MUSIC', 'SUCCESS', '', now - 300, now - 299, now - 240, '100%', songs);
    task.run('suno-lyrics', 'suno', userId, 'LYRICS', 'QUEUED', '', now - 200, 0, 0, '0%', '[]');
    task.run('suno-new', 'suno', userId, 'MUSIC', '', '', now - 190, 0, 0, '', '');
    task.run('suno-lost', 'suno', userId, 'MUSIC', 'UNKNOWN', '', now - 180, 0, 0, '', '');
    task.run(
      'suno-failed',
      'suno',
      userId,
      'MUSIC',
      'FAILURE',
      'Suno: the lyrics contain words that are not allowed',
      now - 170,
      now - 169,
      now - 150,
      '100%',
      '',
    );
    task.run('kl-done', 'kling', userId, 'textGenerate', 'SUCCESS', '', now - 160, now - 159, now - 100, '100%', clip);
    // An OpenAI-compatible video: no URL stored, the gateway's content route streams it.
    task.run('sora-done', 'sora', userId, 'textGenerate', 'SUCCESS', '', now - 150, now - 149, now - 120, '100%', '');
    soraUpstream = await startSoraUpstream();
    await apiAs(root, 'POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'sora',
        type: 55,
        key: SORA_KEY,
        base_url: soraUpstream.url,
        models: 'sora-2',
        group: 'default',
      },
    });
    const soraChannel = (db.prepare("SELECT id FROM channels WHERE name = 'sora'").get() as { id: number }).id;
    db.prepare('UPDATE tasks SET channel_id = ?, upstream_task_id = ? WHERE task_id = ?').run(
      soraChannel,
      SORA_UPSTREAM_ID,
      'sora-done',
    );
    // new-api stores a video task's platform by name or by channel type id (50: Kling).
    task.run('kl-running', '50', userId, 'generate', 'IN_PROGRESS', '', now - 60, now - 59, 0, '30%', '');
    task.run('sora-waiting', '55', userId, 'textGenerate', 'NOT_START', '', now - 50, 0, 0, '0%', '');
    task.run('vidu-submitted', 'vidu', userId, 'generate', 'SUBMITTED', '', now - 40, 0, 0, '', '');

    let context;
    ({ page, context } = await h.newPage());
    csp = cspErrors(page);
    await serveRemoteClip(context);
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
    await login(page, USER);
  });
  afterAll(async () => {
    db?.close();
    await h?.close();
    await soraUpstream?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the sidebar shows the drawing and task logs only while drawing and tasks are enabled', async () => {
    await page.goto('/app/tokens');
    await page.getByRole('menuitem', { name: 'Usage logs' }).waitFor();
    expect(await page.getByRole('menuitem', { name: 'Drawing logs' }).count()).toBe(0);
    expect(await page.getByRole('menuitem', { name: 'Task logs' }).count()).toBe(0);
    await apiAs(root, 'PUT', '/api/option/', { key: 'DrawingEnabled', value: 'true' });
    await apiAs(root, 'PUT', '/api/option/', { key: 'TaskEnabled', value: 'true' });
    await page.reload();
    await page.getByRole('menuitem', { name: 'Drawing logs' }).waitFor();
    await page.getByRole('menuitem', { name: 'Task logs' }).click();
    await page.waitForURL((u) => u.pathname === '/app/logs/tasks');
    await page.getByRole('menuitem', { name: 'Drawing logs' }).click();
    await page.waitForURL((u) => u.pathname === '/app/logs/drawing');
  });

  it('the drawing log shows every state, progress bars, thumbnails with a preview, fail reasons and the duration colours', async () => {
    const table = page.getByTestId('drawing-tasks-table');
    await expect.poll(() => rowsOf(table).count()).toBe(7);
    const text = (await table.textContent()) ?? '';
    for (const state of ['Success', 'In progress', 'Not started', 'Submitted', 'Modal', 'Failure'])
      expect(text).toContain(state);
    for (const code of ['Submitted', 'Waiting']) expect(text).toContain(code);
    // The 100 s drawing is red, the 30 s one green.
    expect(await table.locator('.ant-tag-red', { hasText: '100 s' }).count()).toBe(1);
    expect(await table.locator('.ant-tag-green', { hasText: '30 s' }).count()).toBe(1);
    // Bars: finished ones, and the running ones (an empty bar for the submitted task); the failed one red.
    expect(await table.getByTestId('task-progress').count()).toBe(7);
    expect(await table.locator('.ant-progress-status-exception').count()).toBe(1);
    expect(await table.locator('.ant-progress-status-success').count()).toBe(2);
    expect(await table.locator('.ant-progress-status-active').count()).toBe(3);
    expect(await table.getByTestId('task-image').count()).toBe(2);
    // The video action's result opens a player; plain http from another host is refused by the CSP (https only).
    expect(await table.getByTestId('task-video-open').count()).toBe(1);
    const { dialog, video } = await openVideo(page, table.locator('tr', { hasText: 'mj-slow' }));
    expect(await video.getAttribute('src')).toBe('http://127.0.0.1:9/videos/mj-slow.mp4');
    expect(await dialog.getByTestId('task-video-link').getAttribute('href')).toBe(
      'http://127.0.0.1:9/videos/mj-slow.mp4',
    );
    await expect
      .poll(() => csp.some((e) => e.includes('127.0.0.1:9/videos/mj-slow.mp4') && e.includes('media-src')))
      .toBe(true);
    // The dialog says the video could not be loaded here; its links remain.
    await dialog.getByTestId('task-video-failed').waitFor();
    await h.shot(page, 'task-logs-01b-drawing-video-refused');
    await closeVideo(page);
    csp.length = 0;
    await expect
      .poll(() => table.getByTestId('task-fail-reason').textContent())
      .toContain('Midjourney refused the prompt');
    // A running task: the page says it refreshes by itself.
    await page.getByTestId('drawing-tasks-live').waitFor();
    await h.shot(page, 'task-logs-01-drawing');

    // The poller moves the running drawing on: the bar follows without a click.
    db.prepare("UPDATE midjourneys SET progress = '80%' WHERE mj_id = 'mj-running'").run();
    await expect
      .poll(() => table.locator('tr', { hasText: 'mj-running' }).getByTestId('task-progress').textContent(), {
        timeout: 20_000,
      })
      .toContain('80%');

    await table.getByTestId('task-image').first().click();
    // The preview has zoomed in once the image is shown large.
    await expect
      .poll(async () => (await page.locator('.ant-image-preview-img').boundingBox())?.width ?? 0)
      .toBeGreaterThan(400);
    await h.shot(page, 'task-logs-02-drawing-preview');
    await page.keyboard.press('Escape');
    await page.locator('.ant-image-preview-img').waitFor({ state: 'hidden' });

    // The long reason: its whole text in a tooltip.
    await table.getByTestId('task-fail-reason').hover();
    await expect.poll(() => page.locator('.ant-tooltip').last().textContent()).toContain('submit the task again');
    await h.shot(page, 'task-logs-03-drawing-fail-reason');
  });

  it('the task log shows music and video tasks in every state with their players and platforms', async () => {
    await page.goto('/app/logs/tasks');
    const table = page.getByTestId('music-tasks-table');
    await expect.poll(() => rowsOf(table).count()).toBe(10);
    const text = (await table.textContent()) ?? '';
    for (const state of [
      'Success',
      'Queued',
      'Submitting',
      'Unknown',
      'Failure',
      'In progress',
      'Not started',
      'Submitted',
    ])
      expect(text).toContain(state);
    for (const platform of ['Suno', 'Kling', 'Sora', 'Vidu']) expect(text).toContain(platform);
    expect(await table.locator('tr', { hasText: 'kl-running' }).getByTestId('task-platform').textContent()).toBe(
      'Kling',
    );
    expect(text).toContain('Generate lyrics');
    expect(text).toContain('Text to video');
    expect(text).toContain('Image to video');
    expect(text).toContain('Night drive');
    expect(text).toContain('the lyrics contain words that are not allowed');
    // Durations: a minute or more red, less green.
    expect(await table.locator('.ant-tag-red', { hasText: '60 s' }).count()).toBe(2);
    expect(await table.locator('.ant-tag-green', { hasText: '20 s' }).count()).toBe(1);
    expect(await table.locator('.ant-tag-green', { hasText: '30 s' }).count()).toBe(1);
    // The song's player loads its file (served by the site) and shows its cover.
    const audio = table.getByTestId('task-audio');
    expect(await audio.count()).toBe(1);
    expect(await audio.getAttribute('src')).toBe(`${h.baseUrl}/${MEDIA_DIR}/night-drive.wav`);
    await audio.evaluate((el: HTMLAudioElement) => el.load());
    await expect
      .poll(() => audio.evaluate((el: HTMLAudioElement) => el.readyState), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await table.getByTestId('task-image').count()).toBe(1);
    // The two finished videos have a play button each; the running ones none.
    expect(await table.getByTestId('task-video-open').count()).toBe(2);
    expect(await table.locator('tr', { hasText: 'kl-running' }).getByTestId('task-video-open').count()).toBe(0);
    expect(await table.locator('tr', { hasText: 'kl-running' }).getByTestId('task-progress').textContent()).toContain(
      '30%',
    );
    await page.getByTestId('music-tasks-live').waitFor();
    await h.shot(page, 'task-logs-04-music-video');

    // Kling's video on an https host: the player loads it (metadata read: readyState >= 1), nothing refused by the CSP.
    const kling = await openVideo(page, table.locator('tr', { hasText: 'kl-done' }));
    const klingUrl = KLING_URL;
    expect(await kling.video.getAttribute('src')).toBe(klingUrl);
    await expect
      .poll(() => kling.video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await kling.video.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight])).toEqual([320, 180]);
    expect(await kling.dialog.getByTestId('task-video-link').getAttribute('href')).toBe(klingUrl);
    expect(await kling.dialog.getByTestId('task-video-download').getAttribute('href')).toBe(klingUrl);
    expect(await kling.dialog.textContent()).toContain('Video preview');
    expect(await kling.dialog.getByTestId('task-video-failed').count()).toBe(0);
    expect(csp).toEqual([]);
    await h.shot(page, 'task-logs-05-video-player');
    await closeVideo(page);

    // Sora's video comes from the gateway's own content route, fetched with the session (New-Api-User) from the
    // task's channel upstream and played from a blob: the request succeeds, the video loads, the CSP lets it through.
    const contentResponse = page.waitForResponse((r) => r.url() === `${h.baseUrl}/v1/videos/sora-done/content`);
    const sora = await openVideo(page, table.locator('tr', { hasText: 'sora-done' }));
    expect((await contentResponse).status()).toBe(200);
    await expect.poll(() => sora.video.getAttribute('src')).toMatch(/^blob:/);
    await expect
      .poll(() => sora.video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await sora.dialog.getByTestId('task-video-download').getAttribute('href')).toMatch(/^blob:/);
    expect(await sora.dialog.getByTestId('task-video-failed').count()).toBe(0);
    expect(csp).toEqual([]);
    await h.shot(page, 'task-logs-05b-sora-player');
    await closeVideo(page);

    // Every running task finishes: the bars fill and the page stops refreshing.
    db.prepare(
      "UPDATE tasks SET status = 'SUCCESS', progress = '100%', finish_time = ? WHERE status IN ('', 'QUEUED', 'IN_PROGRESS', 'NOT_START', 'SUBMITTED')",
    ).run(now);
    await expect.poll(() => page.getByTestId('music-tasks-live').count(), { timeout: 20_000 }).toBe(0);
    // A full bar shows a tick in place of its percentage.
    expect(await table.locator('tr', { hasText: 'kl-running' }).locator('.ant-progress-status-success').count()).toBe(
      1,
    );
  });

  it('in Chinese, administrators see every task with its channel', async () => {
    const { page: rootPage, context } = await h.newPage();
    await serveRemoteClip(context);
    await context.addInitScript(() => localStorage.setItem('i18nextLng', 'zh'));
    await login(rootPage, ROOT);
    await rootPage.goto('/app/logs/tasks');
    const table = rootPage.getByTestId('music-tasks-table');
    await expect.poll(() => rowsOf(table).count()).toBe(10);
    const text = (await table.textContent()) ?? '';
    expect(text).toContain('#5');
    for (const word of ['成功', '失败', '未知', '可灵', '文生视频', '生成歌词']) expect(text).toContain(word);
    // A platform stored as a channel type id is named in Chinese too.
    expect(await table.locator('tr', { hasText: 'kl-running' }).getByTestId('task-platform').textContent()).toBe(
      '可灵',
    );
    await h.shot(rootPage, 'task-logs-06-music-video-zh-admin');
    // The player in Chinese: it loads Kling's video with nothing refused by the CSP.
    const rootCsp = cspErrors(rootPage);
    const { dialog, video } = await openVideo(rootPage, table.locator('tr', { hasText: 'kl-done' }));
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    const words = (await dialog.textContent()) ?? '';
    for (const word of ['视频预览', '新窗口打开', '下载']) expect(words).toContain(word);
    expect(rootCsp).toEqual([]);
    await h.shot(rootPage, 'task-logs-07-video-player-zh');
    await closeVideo(rootPage);
    await rootPage.goto('/app/logs/drawing');
    const drawing = rootPage.getByTestId('drawing-tasks-table');
    await expect.poll(() => rowsOf(drawing).count()).toBe(7);
    const dtext = (await drawing.textContent()) ?? '';
    for (const word of ['#3', '执行中', '窗口等待', '未启动', '队列中', '等待中']) expect(dtext).toContain(word);
    await h.shot(rootPage, 'task-logs-08-drawing-zh-admin');
    await context.close();
  });
});
