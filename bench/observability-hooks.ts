// The relay's observability hooks alone, in process: what one call's hook sequence (route entry, auth, reserve,
// channel pick, attempt, settle, end) costs with everything off, with metrics on, and with metrics and tracing on
// (spans exported to a local OTLP sink). `node --import tsx bench/observability-hooks.ts` runs it alone; `npm run
// bench` adds its rows.
import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { observeRelayCall, observerOf, observing } from '../packages/server/src/observability/relay-observer.js';
import { startTracing, stopTracing } from '../packages/server/src/observability/tracing.js';

const CALLS = 200_000;
const ROUNDS = 5;
const HEADERS = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };

/** One relay call's hooks, in the order the relay runs them. */
function oneCall(res: ServerResponse): void {
  const obs = observing.on ? observeRelayCall('/v1/chat/completions', HEADERS, res) : undefined;
  const inCall = observerOf(res);
  inCall?.authenticated();
  inCall?.reservedQuota(1000, 'bench-request');
  const inAttempts = observerOf(res);
  inAttempts?.picking();
  inAttempts?.attempting(1, 'gpt-4o-mini');
  inAttempts?.attempted({ kind: 'relayed', status: 200, firstByteMs: 3 });
  inAttempts?.settling();
  inAttempts?.settled(1000);
  obs?.end();
}

/** Nanoseconds per call: the median of ROUNDS rounds of CALLS calls. */
function measure(res: ServerResponse, calls = CALLS): number {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) oneCall(res);
    rounds.push(Number(process.hrtime.bigint() - t0) / calls);
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

/** A sink for exported spans (answers every POST, keeps nothing). */
async function startSink(): Promise<http.Server> {
  const sink = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  return sink;
}

export interface HookCosts {
  offNs: number;
  metricsNs: number;
  tracingNs: number;
}

export async function observabilityHookCosts(): Promise<HookCosts> {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  measure(res, CALLS / 10);
  const offNs = measure(res);
  observing.metrics = true;
  observing.on = true;
  measure(res, CALLS / 10);
  const metricsNs = measure(res);
  const sink = await startSink();
  observing.tracer = startTracing(
    {
      endpoint: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`,
      serviceName: 'bench',
      version: 'bench',
      sampler: { name: 'always_on', ratio: 1 },
      exportDelayMs: 200,
    },
    pino({ level: 'silent' }),
  );
  // Fewer calls: every one makes six spans.
  measure(res, CALLS / 100);
  const tracingNs = measure(res, CALLS / 10);
  observing.tracer = undefined;
  observing.metrics = false;
  observing.on = false;
  await stopTracing();
  sink.close();
  return { offNs, metricsNs, tracingNs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const c = await observabilityHookCosts();
  console.log(
    `hooks per call: off ${c.offNs.toFixed(1)} ns, metrics on ${c.metricsNs.toFixed(0)} ns, metrics and tracing on ${c.tracingNs.toFixed(0)} ns`,
  );
}
