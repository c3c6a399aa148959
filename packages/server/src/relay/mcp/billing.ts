import { LogType } from '@tollway/shared';
import { planOf, type Hold, type ReserveTarget } from '../../accounting/ledger.js';
import type { WriteRecord } from '../../accounting/writer-apply.js';
import { callLogRow, useTimeSince, type CallIdentity } from '../billing/log-row.js';
import { newRequestId } from '../billing/settle.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { reserveQuota } from '../pipeline/admit.js';
import { journalCall } from '../pipeline/lifecycle.js';
import type { RelayContext } from '../pipeline/services.js';

/** How a tool call ended, as its log row says. */
export type ToolCallStatus = 'ok' | 'tool_error' | 'error' | 'cancelled';

/** A tool call's bill in progress: who, what it holds, since when. */
export interface ToolCallBill {
  identity: CallIdentity;
  price: number;
  started: number;
  /** The call's arguments as its log row keeps them ('' unless the server logs arguments). */
  args: string;
  held?: { target: ReserveTarget; hold: Hold };
}

/**
 * Opens a tool call's bill: its price (quota) held from the payer as a fixed-price relay call's is (a short balance
 * refuses it here, before anything goes upstream), and its bill at the hold journaled, so a crash charges it once.
 */
export async function openToolCall(
  ctx: RelayContext,
  who: { auth: TokenAuth; group: string; ip: string },
  server: string,
  tool: string,
  price: number,
  args = '',
): Promise<ToolCallBill> {
  const identity: CallIdentity = {
    auth: who.auth,
    group: who.group,
    model: `mcp:${server}/${tool}`,
    stream: false,
    ip: who.ip,
    requestId: newRequestId(),
  };
  const bill: ToolCallBill = { identity, price, args, started: Date.now() };
  if (price <= 0) return bill;
  const { target, hold } = await reserveQuota(ctx, who.auth, price);
  bill.held = { target, hold };
  await journalCall(ctx, { ...identity, started: bill.started, target, reserved: price });
  return bill;
}

/**
 * Closes a tool call's bill: a call the upstream answered (a tool error included) is charged its price, a failed or
 * cancelled one nothing; one usage log row either way (bytes, duration and status in `other`; the arguments only
 * when the server logs them, secrets masked).
 */
export async function closeToolCall(
  ctx: RelayContext,
  bill: ToolCallBill,
  outcome: { status: ToolCallStatus; requestBytes: number; responseBytes: number; progress: number; error?: string },
): Promise<number> {
  const served = outcome.status === 'ok' || outcome.status === 'tool_error';
  const { held, identity } = bill;
  const charged = held ? await ctx.relay.ledger.settle(held.target, held.hold, served ? bill.price : 0) : 0;
  const [server = '', tool = ''] = identity.model.slice('mcp:'.length).split('/', 2);
  const log = ctx.relay.settings.get().logConsume
    ? callLogRow(identity, {
        created_at: Math.floor(Date.now() / 1000),
        type: LogType.Consume,
        content: outcome.error ? outcome.error.slice(0, 2000) : '',
        quota: charged,
        prompt_tokens: 0,
        completion_tokens: 0,
        use_time: useTimeSince(bill.started),
        channel_id: 0,
        channel_name: '',
        other: JSON.stringify({
          mcp_server: server,
          mcp_tool: tool,
          mcp_status: outcome.status,
          mcp_price: bill.price,
          duration_ms: Date.now() - bill.started,
          request_bytes: outcome.requestBytes,
          response_bytes: outcome.responseBytes,
          progress_notifications: outcome.progress,
          ...(bill.args ? { mcp_arguments: bill.args } : {}),
        }),
      })
    : undefined;
  const record: WriteRecord = {
    userId: identity.auth.userId,
    tokenId: identity.auth.tokenId,
    tokenLimited: held?.target.tokenId !== undefined,
    ...(held ? planOf(held.target) : {}),
    channelId: 0,
    quota: charged,
    countsRequest: true,
    log,
    ...(held ? { lease: held.hold } : {}),
  };
  ctx.relay.writer.enqueue(record, held ? identity.requestId : undefined, log !== undefined);
  return charged;
}
