import { ChannelType } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateKey } from '../../src/relay/entry/authenticate.js';
import { taskPlatformByName } from '../../src/relay/tasks/platforms.js';
import type { TaskPassResult } from '../../src/relay/tasks/poller.js';
import { submitTask } from '../../src/relay/tasks/service.js';
import { createUserClient, setupRoot } from '../support/app.js';
import { addChannel, addToken, setQuota } from '../support/gateway.js';
import {
  registerFakeTaskPlatform,
  startMockTaskUpstream,
  type MockTaskUpstream,
} from '../support/mock-task-upstream.js';
import { useTwoNodes } from '../support/two-nodes.js';

const PLATFORM = 'fake-cluster-tasks';
const MODEL = 'fake_cluster_task';
const TASKS = 6;
const ROUNDS = 8;
/** Long enough that only the passes the test runs happen, short enough that a released lease is free at once. */
const POLL_MS = 60_000;

describe('task poller on two nodes with Redis', () => {
  let mock: MockTaskUpstream;
  let unregister: () => void;
  beforeAll(async () => {
    mock = await startMockTaskUpstream();
    unregister = registerFakeTaskPlatform(PLATFORM, ChannelType.Custom);
  });
  afterAll(async () => {
    unregister();
    await mock.close();
  });
  const nodes = useTwoNodes({ TASK_POLL_INTERVAL_MS: String(POLL_MS) }, undefined, 60_000);

  it('one node polls at a time: every task is asked about once per round, by the lease holder; a stopped holder hands over', async () => {
    const { a, b } = nodes;
    const root = await setupRoot(a.app);
    const user = await createUserClient(a.app, root, 'carol');
    await setQuota(root, user.userId!, 1_000_000);
    const { key } = await addToken(a, user.userId!);
    await addChannel(root, {
      name: 'cluster-tasks',
      key: 'task-key',
      baseUrl: mock.url,
      models: MODEL,
      type: ChannelType.Custom,
    });
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.01 }) });
    await b.runtime.ctx.channelCache.reload();
    const ctx = a.runtime.ctx;
    const who = await authenticateKey(key.slice(3), '127.0.0.1', ctx.relay.tokens);
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const r = await submitTask(ctx, who, {
        platform: taskPlatformByName(PLATFORM)!,
        action: 'GENERATE',
        model: MODEL,
        body: { prompt: `never ${i}` },
        ip: '',
      });
      if (!r.ok) throw new Error(r.message);
      ids.push(r.task.upstreamTaskId);
    }
    const rounds: [TaskPassResult, TaskPassResult][] = [];
    for (let i = 0; i < ROUNDS; i++)
      rounds.push(await Promise.all([a.runtime.taskPoller.job.runOnce(), b.runtime.taskPoller.job.runOnce()]));
    for (const [ra, rb] of rounds) {
      expect(Number(ra.leader) + Number(rb.leader)).toBe(1);
      expect((ra.leader ? rb : ra).polled).toBe(0);
      expect((ra.leader ? ra : rb).polled).toBe(TASKS);
    }
    for (const id of ids) expect(mock.fetches.get(id)).toBe(ROUNDS);
    // The holder stops (its lease released): the other node polls from its next pass.
    const [holder, other] = rounds[0]![0].leader ? [a, b] : [b, a];
    await holder.runtime.taskPoller.stop();
    const next = await other.runtime.taskPoller.job.runOnce();
    expect(next).toMatchObject({ leader: true, polled: TASKS });
    for (const id of ids) expect(mock.fetches.get(id)).toBe(ROUNDS + 1);
  });
});
