// The mock OpenAI upstream in its own process for the benchmark; prints its URL on stdout.
import { startMockUpstream } from '../packages/server/test/support/mock-upstream.js';

const mock = await startMockUpstream({ record: false });
process.stdout.write(`${mock.url}\n`);
process.on('SIGTERM', () => void mock.close().then(() => process.exit(0)));
