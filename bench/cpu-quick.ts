// Developer tool: only the conversion CPU rows of `npm run bench` (Anthropic in → OpenAI upstream vs pass-through).
// `node --import tsx bench/cpu-quick.ts [rounds] [seconds]`; not part of `npm run bench`.
import { cpuRatio, throughput } from './measure.js';
import {
  anthropicBody,
  anthropicStreamBody,
  anthropicTarget,
  chatBody,
  startMock,
  startTollway,
  streamBody,
} from './targets.js';

const rounds = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 4);
const { url, proc: mock } = await startMock();
const { target, proc } = await startTollway(url);
try {
  const conv = anthropicTarget(target);
  const convStream = anthropicTarget(target, true);
  for (const [t, b] of [
    [target, chatBody],
    [conv, anthropicBody],
    [target, streamBody],
    [convStream, anthropicStreamBody],
  ] as const)
    await throughput(t, b, 16, 2);
  const pid = proc.child.pid!;
  const plain = await cpuRatio(
    { target, body: chatBody, pid },
    { target: conv, body: anthropicBody, pid },
    rounds,
    seconds,
  );
  console.log(
    `plain: ${plain.aMs.toFixed(4)} vs ${plain.bMs.toFixed(4)} ms → ${((plain.ratio - 1) * 100).toFixed(1)}%`,
  );
  const streamed = await cpuRatio(
    { target, body: streamBody, pid },
    { target: convStream, body: anthropicStreamBody, pid },
    rounds,
    seconds,
  );
  console.log(
    `streamed: ${streamed.aMs.toFixed(4)} vs ${streamed.bMs.toFixed(4)} ms → ${((streamed.ratio - 1) * 100).toFixed(1)}%`,
  );
} finally {
  await proc.stop();
  await mock.stop();
}
