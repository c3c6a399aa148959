import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { loginSession, type Session } from './api-session.js';
import { login, privateConsole, startHarness, type Harness } from './harness.js';

/** A browser file's server and Chromium with root set up: its API session, and a page signed in, in English. */
export interface RootConsole {
  h: Harness;
  root: Session;
  page: Page;
  context: BrowserContext;
  /** Stops the server and the browser and removes the console's copy. */
  close(): Promise<void>;
}

/**
 * The usual start of a settings or admin browser file: the real server with a private copy of the built console (a
 * rebuild of packages/web/dist during the run must not remove the chunks the page loads), root set up through
 * /api/setup, signed in by API and in a page shown in English. `before` runs after root's API session opens and
 * before the page signs in (options, users the page should find).
 */
export async function startRootConsole(
  name: string,
  who: { username: string; password: string },
  before?: (root: Session, h: Harness) => Promise<void>,
): Promise<RootConsole> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tollway-${name}-`));
  const h = await startHarness({ WEB_DIST: privateConsole(dir) });
  await fetch(`${h.baseUrl}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...who, confirmPassword: who.password }),
  });
  const root = await loginSession(h.baseUrl, who);
  await before?.(root, h);
  const { page, context } = await h.newPage();
  await context.addInitScript(() => localStorage.setItem('i18nextLng', 'en'));
  await login(page, who);
  return {
    h,
    root,
    page,
    context,
    close: async () => {
      await h.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
