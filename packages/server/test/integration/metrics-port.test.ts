import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, runServer, waitForStart, type ServerProcess } from '../support/process.js';

/** The production server with METRICS_PORT: /metrics on its own loopback port, not on the public one. */
describe('METRICS_PORT in the server process', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-metrics-port-'));
  let p: ServerProcess | undefined;
  afterAll(async () => {
    if (p && p.child.exitCode === null) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves /metrics on METRICS_PORT at 127.0.0.1 and nothing on the public port', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    p = runServer({
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      SQLITE_PATH: path.join(dir, 'db.sqlite'),
      SESSION_SECRET: 'metrics-port-secret-0123456789abcdef',
    });
    await waitForStart(p);
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    expect(text).toContain('# TYPE tollway_relay_requests_total counter');
    expect(text).toContain('process_cpu_user_seconds_total');
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
  });
});
