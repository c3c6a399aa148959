// Drives the Midjourney routes as midjourney-proxy clients do: plain HTTP, the mj-api-secret header, submit,
// then fetch until the task is done, then an action from one of its buttons.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { ChannelType } from '@tollway/shared';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { startMockMidjourney, type MockMidjourney } from '../support/mock-midjourney.js';

const POLL_INTERVAL_MS = 100;
const DEADLINE_MS = 15_000;

interface SubmitAnswer {
  code: number;
  description: string;
  result: string;
}
interface Task {
  id: string;
  action: string;
  status: string;
  progress: string;
  imageUrl: string;
  buttons: { customId: string; label: string }[];
  videoUrl?: string;
  videoUrls?: { url: string }[];
}

describe.each(dialects)('a midjourney-proxy client on %s', (dialect) => {
  const gw = useGateway(
    dialect,
    {
      mock: () => startMockMidjourney(),
      user: 'mj-client',
      quota: 1_000_000,
      env: { TASK_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS) },
    },
    async (g: { mock: MockMidjourney; root: import('../support/app.js').Client }) => {
      await g.root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: JSON.stringify({ mj_imagine: 0.05, mj_upscale: 0.02, mj_video: 0.08 }),
      });
      await g.root.call('PUT', '/api/option/', { key: 'MjForwardUrlEnabled', value: 'false' });
      await addChannel(g.root, {
        name: 'mj-plus',
        type: ChannelType.MidjourneyPlus,
        key: g.mock.secret,
        baseUrl: g.mock.url,
        models: 'mj_imagine,mj_upscale,mj_video',
      });
    },
  );

  /** The client's two calls: POST JSON and GET JSON, authenticated with mj-api-secret. */
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await request(`${gw.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mj-api-secret': gw.key },
      body: JSON.stringify(body),
    });
    expect(res.statusCode).toBe(200);
    return (await res.body.json()) as T;
  };
  const get = async <T>(path: string): Promise<T> => {
    const res = await request(`${gw.base}${path}`, { headers: { 'mj-api-secret': gw.key } });
    expect(res.statusCode).toBe(200);
    return (await res.body.json()) as T;
  };
  /** Fetches until SUCCESS or FAILURE, as clients do; the gateway's poller moves the task. */
  const waitDone = async (id: string): Promise<Task> => {
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      const task = await get<Task>(`/mj/task/${id}/fetch`);
      if (task.status === 'SUCCESS' || task.status === 'FAILURE') return task;
      if (Date.now() > end) throw new Error(`task ${id} still ${task.status} at ${task.progress}`);
      await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS));
    }
  };

  it('imagines, waits for the grid, then upscales one image', async () => {
    const submitted = await post<SubmitAnswer>('/mj/submit/imagine', {
      prompt: 'a lighthouse at dusk --v 6',
      base64Array: [],
    });
    expect(submitted.code).toBe(1);
    const grid = await waitDone(submitted.result);
    expect(grid).toMatchObject({ action: 'IMAGINE', status: 'SUCCESS', progress: '100%' });
    expect(grid.imageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/images\//);
    const u2 = grid.buttons.find((b) => b.label === 'U2')!;
    const upscale = await post<SubmitAnswer>('/mj/submit/action', { taskId: grid.id, customId: u2.customId });
    expect(upscale.code).toBe(1);
    const single = await waitDone(upscale.result);
    expect(single).toMatchObject({ action: 'UPSCALE', status: 'SUCCESS' });
    const listed = await post<Task[]>('/mj/task/list-by-condition', { ids: [grid.id, single.id] });
    expect(listed.map((t) => t.id).sort()).toEqual([grid.id, single.id].sort());
  });

  it('animates a finished grid into a video and waits for its videos', async () => {
    const grid = await waitDone(
      (await post<SubmitAnswer>('/mj/submit/imagine', { prompt: 'a windmill in spring' })).result,
    );
    const submitted = await post<SubmitAnswer>('/mj-fast/mj/submit/video', {
      taskId: grid.id,
      index: 1,
      motion: 'high',
    });
    expect(submitted.code).toBe(1);
    const video = await waitDone(submitted.result);
    expect(video).toMatchObject({
      action: 'VIDEO',
      status: 'SUCCESS',
      videoUrl: expect.stringMatching(/\/videos\/.+\.mp4$/),
    });
    expect(video.videoUrls).toHaveLength(2);
  });
});
