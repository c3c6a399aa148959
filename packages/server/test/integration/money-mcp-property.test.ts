import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { startMockMcp, type MockMcp } from '../support/mock-mcp.js';
import {
  allowMockMcp,
  callMcpTool,
  MCP_CALL_KINDS,
  mcpClient,
  mcpLogRows,
  pricedMcpServer,
  type McpOutcome,
} from '../support/money-mcp.js';
import { assertMoneyInvariant, fundedKey, settledMoney, useMoneyGateway } from '../support/money-property.js';

const RUNS = Number(process.env.MONEY_PROPERTY_RUNS ?? 12);
const MAX_BALANCE = 2_000;
const MAX_PRICE = 400;
const MAX_CALLS = 8;

/** What each kind of call may come to: its own outcome, or a refusal when the balance cannot hold the price. */
const ALLOWED: Record<(typeof MCP_CALL_KINDS)[number], McpOutcome> = {
  ok: 'served',
  tool_error: 'served',
  cancelled: 'cancelled',
  client_leaves: 'cancelled',
  upstream_fails: 'failed',
  unknown_tool: 'unavailable',
};

/**
 * Issue 31's money invariant on MCP tool calls (issue 39): whatever the balance, the server's per-call price, the
 * number of calls running at once in one session and whether each is answered, answered with a tool error,
 * cancelled by the client while it runs (or its connection dropped, no cancellation sent), failed by the upstream or
 * names a tool the server does not list, Σ charged ≤ starting balance; every served call (a result reached the
 * client) is charged exactly the price, a cancelled or failed one nothing, a refused or unavailable one never
 * reaches the upstream and is never held (an unknown tool is refused whatever the balance), and each call has one usage row (nothing charged twice). SQLite, and PostgreSQL with the
 * Redis ledger (cluster mode), as the chat surfaces' property runs.
 */
describe.each(dialects.filter((d) => d === 'sqlite' || d === 'postgres'))('MCP money property on %s', (dialect) => {
  const gw = useMoneyGateway<MockMcp>(dialect, { redis: dialect === 'postgres', mock: startMockMcp }, allowMockMcp);
  const upstreamCalls = () => Object.values(gw.mock.calls).reduce((n, c) => n + c, 0);

  it('Σ charged ≤ balance; served calls charged their price exactly, cancelled and failed ones 0', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: MAX_BALANCE }),
        fc.integer({ min: 0, max: MAX_PRICE }),
        fc.array(fc.constantFrom(...MCP_CALL_KINDS), { minLength: 1, maxLength: MAX_CALLS }),
        async (balance, price, kinds) => {
          const { userId, key } = await fundedKey(gw, balance);
          const server = await pricedMcpServer(gw, price);
          const client = await mcpClient(gw, key);
          const reachedBefore = upstreamCalls();
          const cancelledBefore = gw.mock.cancelled;
          let outcomes: McpOutcome[];
          try {
            outcomes = await Promise.all(kinds.map((k) => callMcpTool(gw, key, client, server, k)));
            // The cancellations (the client's, or its connection dropped) reach the upstream before the session ends.
            const cancelled = outcomes.filter((o) => o === 'cancelled').length;
            await expect.poll(() => gw.mock.cancelled - cancelledBefore).toBe(cancelled);
          } finally {
            await client.close();
          }
          kinds.forEach((k, i) => expect([ALLOWED[k], 'refused'], `${k} call`).toContain(outcomes[i]));
          const count = (o: McpOutcome) => outcomes.filter((x) => x === o).length;
          const served = count('served');
          // Only a balance short of the price refuses; one that holds every call at once refuses none.
          if (price === 0 || kinds.length * price <= balance) expect(count('refused')).toBe(0);
          // An unknown tool is refused as such, whatever the balance (it is checked before anything is held).
          kinds.forEach((k, i) => {
            if (k === 'unknown_tool') expect(outcomes[i], 'unknown tool').toBe('unavailable');
          });
          const unreached = count('refused') + count('unavailable');
          // A refused or unavailable call never reaches the upstream; every other call did.
          expect(upstreamCalls() - reachedBefore).toBe(kinds.length - unreached);

          const money = await settledMoney(gw, userId);
          assertMoneyInvariant(balance, served * price, money);
          expect(money.charged).toBe(served * price);
          const rows = await mcpLogRows(gw, userId);
          const rowsOf = (...statuses: string[]) => rows.filter((r) => statuses.includes(r.status));
          expect(rows).toHaveLength(kinds.length - unreached);
          expect(rowsOf('ok', 'tool_error')).toHaveLength(served);
          expect(rowsOf('cancelled')).toHaveLength(count('cancelled'));
          expect(rowsOf('error')).toHaveLength(count('failed'));
          for (const r of rows) expect(r.price).toBe(price);
          for (const r of rowsOf('ok', 'tool_error')) expect(r.quota).toBe(price);
          for (const r of rowsOf('cancelled', 'error')) expect(r.quota).toBe(0);
        },
      ),
      { numRuns: RUNS },
    );
  }, 240_000);
});
