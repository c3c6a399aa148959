import OpenAI from 'openai';
import type { Tool as ResponsesTool } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_RESPONSES_ROUNDS_MAX, ROUNDS_EXHAUSTED } from '../../src/relay/mcp/responses/loop.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, setQuota, userQuota } from '../support/gateway.js';
import { bodyText, hostileValues } from '../support/hostile-bodies.js';
import { startMockMcp, type MockMcp } from '../support/mock-mcp.js';
import { SAMPLE_STRING, startMockVendor, type MockVendor } from '../support/mock-vendor.js';
import { REPEAT_WORD } from '../support/mock-vendor-plan.js';

const MODEL = 'gpt-mcp';
/** The model's per-call price in USD: 1,000 quota a round at the default 500,000 quota per dollar. */
const MODEL_PRICE_USD = 0.002;
const ROUND_QUOTA = 1_000;
const TOOL_PRICE = 7;
const QUOTA = 100_000;
const OPTION = 'mcp_setting.responses_tools_enabled';

interface Mocks {
  vendor: MockVendor;
  mcp: MockMcp;
  close(): Promise<void>;
}

async function startMocks(): Promise<Mocks> {
  const vendor = await startMockVendor();
  const mcp = await startMockMcp();
  return { vendor, mcp, close: async () => void (await Promise.all([vendor.close(), mcp.close()])) };
}

type Item = Record<string, unknown>;

/**
 * The Responses API's remote `mcp` tool resolved to registered MCP servers, end to end on every database: the
 * official openai SDK against Tollway, Tollway's model rounds against a mock OpenAI upstream, its tool calls
 * against a real SDK McpServer. Off: passed through as before. On: tools listed and offered as functions, the
 * loop run server-side, each round and each tool call billed and logged; refusals in the Responses error shape.
 */
describe.each(dialects)('Responses API remote MCP tools (%s)', (dialect) => {
  const g = useGateway<Mocks>(
    dialect,
    { mock: startMocks, user: 'mcp-responses', quota: QUOTA, env: { CRYPTO_SECRET: 'mcp-resp-0042' } },
    async (gw) => {
      const options: [string, string][] = [
        ['fetch_setting.allow_private_ip', 'true'],
        // The vendor's port too: a registered "MCP server" there answers 404 to everything (a server that is down).
        [
          'fetch_setting.allowed_ports',
          JSON.stringify([gw.mock.mcp.url, gw.mock.vendor.url].map((u) => new URL(u).port)),
        ],
        ['ModelPrice', JSON.stringify({ [MODEL]: MODEL_PRICE_USD })],
      ];
      for (const [key, value] of options)
        expect((await gw.root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
      await addChannel(gw.root, { name: 'openai-mcp', key: 'sk-up', baseUrl: gw.mock.vendor.url, models: MODEL });
      const servers = [
        { name: 'paid', allow_tools: 'echo', price: TOOL_PRICE },
        { name: 'alpha', deny_tools: 'delete_*' },
        { name: 'vip', allow_groups: 'vip' },
        { name: 'down', url: `${gw.mock.vendor.url}/mcp` },
      ];
      for (const s of servers) {
        const res = await gw.root.call('POST', '/api/mcp/servers/', { transport: 'http', url: gw.mock.mcp.url, ...s });
        expect(res.body.success, res.body.message).toBe(true);
      }
    },
  );
  const client = () => new OpenAI({ apiKey: g.key, baseURL: `${g.base}/v1`, maxRetries: 0 });
  const setOption = async (on: boolean) => {
    const res = await g.root.call('PUT', '/api/option/', { key: OPTION, value: String(on) });
    expect(res.body.success, res.body.message).toBe(true);
  };
  const mcpTool = (label: string, extra: Record<string, unknown> = {}) =>
    ({ type: 'mcp', server_label: label, require_approval: 'never', ...extra }) as unknown as ResponsesTool;
  /** A streamed request whose model calls paid's echo once. */
  const streamEcho = () =>
    client().responses.create({ model: MODEL, input: 'Use the tool', tools: [mcpTool('paid')], stream: true });
  const logsSince = async (id: number) => {
    await drainWriter(g.t);
    return g.t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('id', '>', id)
      .where('type', '=', 2)
      .orderBy('id')
      .execute();
  };
  const lastLogId = async () => {
    await drainWriter(g.t);
    const row = await g.t.database.db.kysely
      .selectFrom('logs')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  };
  const raw = (body: unknown) =>
    fetch(`${g.base}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${g.key}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  afterEach(async () => {
    await setOption(false);
    await setQuota(g.root, g.user.userId!, QUOTA);
  });

  it('with the option off, an mcp tool passes through as before: no tool listed or called', async () => {
    const calls = { ...g.mock.mcp.calls };
    const requests = g.mock.vendor.requests.length;
    const res = await client().responses.create({ model: MODEL, input: 'hi', tools: [mcpTool('paid')] });
    expect(res.output.map((o) => o.type)).toEqual(['message']);
    expect(res.output_text).toBe('Hello from openai');
    expect(g.mock.mcp.calls).toEqual(calls);
    expect(g.mock.vendor.requests.length).toBe(requests + 1);
    const sent = JSON.stringify(g.mock.vendor.lastRequest('openai').body);
    expect(sent).not.toContain('paid__echo');
  });

  it('runs the loop: mcp_list_tools, mcp_call and the final message; the tool and each round billed and logged', async () => {
    await setOption(true);
    const userId = g.user.userId!;
    const before = await userQuota(g.t, userId);
    const fromLog = await lastLogId();
    const echoes = g.mock.mcp.calls.echo ?? 0;
    const requests = g.mock.vendor.requests.length;
    const res = await client().responses.create({
      model: MODEL,
      input: 'Use the tool',
      tools: [mcpTool('paid', { server_url: g.mock.mcp.url, headers: { Authorization: 'Bearer caller-secret' } })],
    });
    expect(res.status).toBe('completed');
    const output = res.output as unknown as Item[];
    expect(output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(output[0]).toMatchObject({ server_label: 'paid', error: null });
    expect((output[0]!.tools as Item[]).map((t) => t.name)).toEqual(['echo']);
    expect(output[1]).toMatchObject({
      server_label: 'paid',
      name: 'echo',
      arguments: JSON.stringify({ text: SAMPLE_STRING }),
      output: `echo: ${SAMPLE_STRING}`,
      error: null,
      status: 'completed',
    });
    expect(String(output[1]!.id)).toMatch(/^mcp_/);
    expect(res.output_text).toBe(`Tool said: echo: ${SAMPLE_STRING}`);
    // The caller's headers go nowhere: not upstream to the MCP server, not back in the answer.
    expect([...g.mock.mcp.authorizations]).not.toContain('Bearer caller-secret');
    expect(JSON.stringify(res.tools)).not.toContain('caller-secret');
    expect(g.mock.mcp.calls.echo).toBe(echoes + 1);
    // Two model rounds: the first offered the tool as a function, the second carried its output back.
    const rounds = g.mock.vendor.requests.slice(requests);
    expect(rounds).toHaveLength(2);
    expect(JSON.stringify(rounds[0]!.body)).toContain('paid__echo');
    expect(JSON.stringify(rounds[1]!.body)).toContain(`echo: ${SAMPLE_STRING}`);
    // Billing: two rounds at the model's price and one tool call at the server's, nothing more.
    expect(await userQuota(g.t, userId)).toBe(before - 2 * ROUND_QUOTA - TOOL_PRICE);
    const logs = await logsSince(fromLog);
    expect(logs.map((l) => [l.model_name, Number(l.quota)])).toEqual([
      [MODEL, ROUND_QUOTA],
      ['mcp:paid/echo', TOOL_PRICE],
      [MODEL, ROUND_QUOTA],
    ]);
    expect(JSON.parse(String(logs[1]!.other))).toMatchObject({
      mcp_server: 'paid',
      mcp_tool: 'echo',
      mcp_status: 'ok',
    });
    expect(res.usage?.input_tokens).toBeGreaterThan(0);
  });

  it('streams the items as they happen, in OpenAI event order, ending with the whole response', async () => {
    await setOption(true);
    const userId = g.user.userId!;
    const before = await userQuota(g.t, userId);
    const stream = await streamEcho();
    const types: string[] = [];
    const sequence: number[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      types.push(e.type);
      sequence.push(e.sequence_number);
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') completed = e.response;
    }
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.in_progress',
      'response.mcp_call.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(sequence).toEqual(sequence.map((_, i) => i));
    expect(text).toBe(`Tool said: echo: ${SAMPLE_STRING}`);
    expect(completed?.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(await userQuota(g.t, userId)).toBe(before - 2 * ROUND_QUOTA - TOOL_PRICE);
    // The SDK's own stream helper assembles the same answer from the events.
    const helper = client().responses.stream({ model: MODEL, input: 'Use the tool', tools: [mcpTool('paid')] });
    const final = await helper.finalResponse();
    expect(final.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(final.output_text).toBe(`Tool said: echo: ${SAMPLE_STRING}`);
  });

  it('ends a stream on a short balance with an error event the SDK raises', async () => {
    await setOption(true);
    await setQuota(g.root, g.user.userId!, ROUND_QUOTA + TOOL_PRICE - 1);
    const echoes = g.mock.mcp.calls.echo ?? 0;
    const stream = await streamEcho();
    const types: string[] = [];
    const read = async () => {
      for await (const e of stream) types.push(e.type);
    };
    await expect(read()).rejects.toThrow(/insufficient user quota/);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types).toContain('response.mcp_call.in_progress');
    expect(g.mock.mcp.calls.echo ?? 0).toBe(echoes);
  });

  it('cancels the tool call upstream and runs no further round when the caller goes away', async () => {
    await setOption(true);
    const fromLog = await lastLogId();
    const cancelled = g.mock.mcp.cancelled;
    const requests = g.mock.vendor.requests.length;
    const leave = new AbortController();
    const started = g.mock.mcp.waiting();
    const call = client().responses.create(
      { model: MODEL, input: 'Wait', tools: [mcpTool('alpha', { allowed_tools: ['wait_forever'] })] },
      { signal: leave.signal },
    );
    await started;
    leave.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => g.mock.mcp.cancelled).toBe(cancelled + 1);
    await expect
      .poll(async () => (await logsSince(fromLog)).map((l) => JSON.parse(String(l.other)).mcp_status as unknown))
      .toContain('cancelled');
    expect(g.mock.vendor.requests.length).toBe(requests + 1);
  });

  it('ends a model that keeps calling tools after the last round, answered without tools and marked incomplete', async () => {
    await setOption(true);
    const userId = g.user.userId!;
    const before = await userQuota(g.t, userId);
    const requests = g.mock.vendor.requests.length;
    const res = await client().responses.create({
      model: MODEL,
      input: `Use the tool ${REPEAT_WORD}`,
      tools: [mcpTool('paid')],
    });
    const calls = MCP_RESPONSES_ROUNDS_MAX - 1;
    expect(res.output.map((o) => o.type)).toEqual([
      'mcp_list_tools',
      ...Array<string>(calls).fill('mcp_call'),
      'message',
    ]);
    expect(res.status).toBe('incomplete');
    expect(res.incomplete_details).toEqual({ reason: ROUNDS_EXHAUSTED });
    expect(res.output_text).toBe(`Tool said: echo: ${SAMPLE_STRING}`);
    const rounds = g.mock.vendor.requests.slice(requests);
    expect(rounds).toHaveLength(MCP_RESPONSES_ROUNDS_MAX);
    // The last round was asked to answer without tools.
    expect(rounds.at(-1)!.body.tool_choice).toBe('none');
    expect(await userQuota(g.t, userId)).toBe(before - MCP_RESPONSES_ROUNDS_MAX * ROUND_QUOTA - calls * TOOL_PRICE);
  });

  it('does not offer a tool the token may not use, and a call of it anyway is an error output, never a call', async () => {
    await setOption(true);
    const deletes = g.mock.mcp.calls.delete_everything ?? 0;
    const fromLog = await lastLogId();
    const requests = g.mock.vendor.requests.length;
    const res = await client().responses.create({
      model: MODEL,
      input: 'Clean up',
      tools: [mcpTool('alpha', { allowed_tools: ['echo', 'delete_everything'] })],
      tool_choice: { type: 'mcp', server_label: 'alpha', name: 'delete_everything' },
    });
    const output = res.output as unknown as Item[];
    expect(output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect((output[0]!.tools as Item[]).map((t) => t.name)).toEqual(['echo']);
    expect(JSON.stringify(g.mock.vendor.requests[requests]!.body)).not.toContain(
      '"alpha__delete_everything","description"',
    );
    expect(output[1]).toMatchObject({
      name: 'delete_everything',
      output: null,
      status: 'failed',
      error: { type: 'mcp_protocol_error', message: 'tool delete_everything is not available to this token' },
    });
    expect(res.output_text).toBe('Tool said: error: tool delete_everything is not available to this token');
    expect(g.mock.mcp.calls.delete_everything ?? 0).toBe(deletes);
    expect((await logsSince(fromLog)).map((l) => l.model_name)).toEqual([MODEL, MODEL]);
  });

  it('runs its rounds one after another under a concurrency limit of one call per token', async () => {
    await setOption(true);
    const limit = (value: string) => g.root.call('PUT', '/api/option/', { key: 'TokenConcurrencyLimit', value });
    expect((await limit('1')).body.success).toBe(true);
    try {
      // A refused tool call needs no upstream: the second round follows the first at once.
      const res = await client().responses.create({
        model: MODEL,
        input: 'Clean up',
        tools: [mcpTool('alpha', { allowed_tools: ['echo'] })],
        tool_choice: { type: 'mcp', server_label: 'alpha', name: 'delete_everything' },
      });
      expect(res.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    } finally {
      expect((await limit('0')).body.success).toBe(true);
    }
  });

  it("applies the token's own tool lists as /mcp does; a tool's error result is an mcp_tool_execution_error", async () => {
    await setOption(true);
    const put = (body: object) => g.user.call('PUT', '/api/token/', { id: g.tokenId, ...body });
    expect((await put({ mcp_deny_tools: 'alpha__echo' })).body.success).toBe(true);
    try {
      const fromLog = await lastLogId();
      const res = await client().responses.create({
        model: MODEL,
        input: 'Try it',
        tools: [mcpTool('alpha', { allowed_tools: ['echo', 'fails'] })],
      });
      const output = res.output as unknown as Item[];
      expect(output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
      expect((output[0]!.tools as Item[]).map((t) => t.name)).toEqual(['fails']);
      const failed = [{ type: 'text', text: 'it failed' }];
      expect(output[1]).toMatchObject({
        name: 'fails',
        output: null,
        status: 'failed',
        error: { type: 'mcp_tool_execution_error', content: failed },
      });
      expect(res.output_text).toBe(`Tool said: error: ${JSON.stringify(failed)}`);
      const tool = (await logsSince(fromLog)).find((l) => l.model_name === 'mcp:alpha/fails');
      expect(JSON.parse(String(tool?.other))).toMatchObject({ mcp_status: 'tool_error' });
    } finally {
      expect((await put({ mcp_deny_tools: '' })).body.success).toBe(true);
    }
  });

  it('answers without the tools of a server that cannot be listed, its mcp_list_tools item saying so', async () => {
    await setOption(true);
    const res = await client().responses.create({
      model: MODEL,
      input: 'hi',
      tools: [mcpTool('down'), mcpTool('paid', { allowed_tools: [] })],
    });
    const output = res.output as unknown as Item[];
    expect(output.map((o) => [o.type, o.server_label, o.error])).toEqual([
      ['mcp_list_tools', 'down', 'MCP server down cannot be reached'],
      ['mcp_list_tools', 'paid', null],
      ['message', undefined, undefined],
    ]);
    expect(res.output_text).toBe('Hello from openai');
  });

  it('refuses, in the Responses error shape and before any model round: unknown or refused servers, foreign urls, approvals', async () => {
    await setOption(true);
    const requests = g.mock.vendor.requests.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ tools: [mcpTool('nowhere')] }, 'mcp_server_not_found'],
      [{ tools: [mcpTool('vip')] }, 'mcp_server_not_found'],
      [{ tools: [mcpTool('paid', { server_url: 'https://mcp.example.com/mcp' })] }, 'mcp_server_url_refused'],
      [{ tools: [mcpTool('paid', { require_approval: 'always' })] }, 'unsupported_parameter'],
      [
        { tools: [mcpTool('paid', { require_approval: { always: { tool_names: ['echo'] } } })] },
        'unsupported_parameter',
      ],
      [{ tools: [mcpTool('paid', { connector_id: 'connector_gmail' })] }, 'unsupported_parameter'],
      [{ tools: [mcpTool('paid'), mcpTool('paid')] }, 'invalid_value'],
      [{ tools: [mcpTool('nowhere')], stream: true }, 'mcp_server_not_found'],
    ];
    for (const [extra, code] of cases) {
      const res = await raw({ model: MODEL, input: 'hi', ...extra });
      const body = (await res.json()) as { error: { code: string; message: string; type: string } };
      expect([res.status, body.error.code], JSON.stringify(extra)).toEqual([400, code]);
      expect(body.error.type).toBe('invalid_request_error');
    }
    // Through the SDK: its BadRequestError with our message.
    await expect(
      client().responses.create({
        model: MODEL,
        input: 'hi',
        tools: [mcpTool('paid', { require_approval: 'always' })],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('approval requests') });
    expect(g.mock.vendor.requests.length).toBe(requests);
  });

  it('stops at a short balance with the caller-protocol error: the round served is billed, the tool never called', async () => {
    await setOption(true);
    const userId = g.user.userId!;
    await setQuota(g.root, userId, ROUND_QUOTA + TOOL_PRICE - 1);
    const echoes = g.mock.mcp.calls.echo ?? 0;
    const res = await raw({ model: MODEL, input: 'Use the tool', tools: [mcpTool('paid')] });
    const body = (await res.json()) as { error: { code: string; type: string } };
    expect(res.status).toBe(403);
    expect(body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_user_quota' });
    expect(g.mock.mcp.calls.echo ?? 0).toBe(echoes);
    expect(await userQuota(g.t, userId)).toBe(TOOL_PRICE - 1);
  });

  it('answers hostile mcp tool fields with a 4xx in the Responses shape, never a 5xx, and calls no tool', async () => {
    await setOption(true);
    const calls = JSON.stringify(g.mock.mcp.calls);
    const failures: string[] = [];
    const fields = ['server_label', 'server_url', 'allowed_tools', 'require_approval', 'headers', 'tunnel_id'];
    for (const field of fields)
      for (const value of [...hostileValues, { tool_names: [null] }, '']) {
        const tool = { type: 'mcp', server_label: 'paid', [field]: value };
        const res = await raw(bodyText({ model: MODEL, input: 'hi', tools: [tool], tool_choice: 'none' }));
        const text = await res.text();
        const label = `${field}=${JSON.stringify(value)?.slice(0, 30)}`;
        if (res.status >= 500) failures.push(`${label}: ${res.status}`);
        else if (res.status >= 400 && !(JSON.parse(text) as { error?: { message?: string } }).error?.message)
          failures.push(`${label}: ${res.status} without an error message`);
      }
    // A body cut short after an mcp tool: the relay's own 400, as any broken body.
    const cut = await raw('{"model":"gpt-mcp","tools":[{"type":"mcp"');
    expect(cut.status).toBe(400);
    expect(failures).toEqual([]);
    expect(JSON.stringify(g.mock.mcp.calls)).toBe(calls);
  });
});
