import {
  ErrorCode,
  LogType,
  MCP_CALL_STATUSES,
  MCP_USAGE_RANGE_MAX_DAYS,
  type McpCallStatus,
  type McpDayUsage,
  type McpToolUsage,
  type McpUsageAnswer,
  type McpUsageQuery,
} from '@tollway/shared';
import { sql, type ExpressionBuilder } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import type { Database } from '../../db/schema.js';
import { coded } from '../../lib/errors.js';
import { perContext } from '../../per-context.js';

const DAY_SECONDS = 86_400;
const MINUTE_SECONDS = 60;
/** A tool call's log row: model `mcp:<server>/<tool>` (relay/mcp/billing.ts). */
const MODEL_PREFIX = 'mcp:';
/** Most (server, tool) groups answered, and (day, tool) groups read for the chart. */
const TOOLS_MAX = 2000;
const DAY_GROUPS_MAX = 20_000;
/** Rows whose `other` is read for statuses and durations (newest first), and how many per page. */
export const MCP_USAGE_ROWS_READ_MAX = 20_000;
const PAGE_ROWS = 1000;

type Scope = { start: number; end: number; server: string | undefined };

/** `mcp:<server>/<tool>` → its server and tool ('' when the name has no slash). */
function splitModel(model: string): { server: string; tool: string } {
  const rest = model.slice(MODEL_PREFIX.length);
  const at = rest.indexOf('/');
  return at < 0 ? { server: rest, tool: '' } : { server: rest.slice(0, at), tool: rest.slice(at + 1) };
}

const noStatuses = (): Record<McpCallStatus, number> =>
  Object.fromEntries(MCP_CALL_STATUSES.map((s) => [s, 0])) as Record<McpCallStatus, number>;

/** The status and duration a row's `other` records (undefined for a row written otherwise). */
function outcomeOf(other: string): { status: McpCallStatus | undefined; duration: number } {
  try {
    const o = JSON.parse(other) as { mcp_status?: unknown; duration_ms?: unknown };
    const status = MCP_CALL_STATUSES.find((s) => s === o.mcp_status);
    const duration = typeof o.duration_ms === 'number' && Number.isFinite(o.duration_ms) ? o.duration_ms : 0;
    return { status, duration };
  } catch {
    return { status: undefined, duration: 0 };
  }
}

/**
 * MCP tool calls as the usage logs record them (docs/operating/mcp.md "The console"), read from the log database
 * (LOG_SQL_DSN's when set). Calls, quota and calls per day are grouped in SQL over every row of the range; a row's
 * status and duration live in its `other` JSON, whose functions differ per dialect, so they are read in code from
 * the newest MCP_USAGE_ROWS_READ_MAX rows, a keyset-paged read.
 */
export class McpUsage {
  constructor(private readonly logDb: Db) {}

  private get k() {
    return this.logDb.kysely;
  }

  private where(s: Scope) {
    return (eb: ExpressionBuilder<Database, 'logs'>) =>
      eb.and([
        eb('type', '=', LogType.Consume),
        likeText('model_name', s.server ? `${MODEL_PREFIX}${s.server}/` : MODEL_PREFIX, 'starts'),
        eb('created_at', '>=', s.start),
        eb('created_at', '<=', s.end),
      ]);
  }

  async report(q: McpUsageQuery): Promise<McpUsageAnswer> {
    const start = q.start_timestamp;
    const end = q.end_timestamp;
    if (end < start || end - start > MCP_USAGE_RANGE_MAX_DAYS * DAY_SECONDS)
      throw coded(ErrorCode.SpendRangeInvalid, `the time range is invalid (at most ${MCP_USAGE_RANGE_MAX_DAYS} days)`, {
        max_days: MCP_USAGE_RANGE_MAX_DAYS,
      });
    const scope: Scope = { start, end, server: q.server || undefined };
    const [tools, days, outcomes] = await Promise.all([
      this.byTool(scope),
      this.byDay(scope, q.utc_offset * MINUTE_SECONDS),
      this.outcomes(scope),
    ]);
    for (const t of tools) {
      const o = outcomes.byModel.get(`${MODEL_PREFIX}${t.server}/${t.tool}`);
      if (!o) continue;
      t.statuses = o.statuses;
      t.avg_duration_ms = o.read ? Math.round(o.duration / o.read) : 0;
    }
    return { tools, days, statuses_complete: outcomes.complete, rows_read_max: MCP_USAGE_ROWS_READ_MAX };
  }

  /** Calls and quota per tool (GROUP BY model_name), most called first. */
  private async byTool(s: Scope): Promise<McpToolUsage[]> {
    const rows = await this.k
      .selectFrom('logs')
      .where(this.where(s))
      .select((eb) => [
        'model_name',
        eb.fn.countAll<number | string>().as('calls'),
        eb.fn.sum<number | string | null>('quota').as('quota'),
      ])
      .groupBy('model_name')
      .orderBy('calls', 'desc')
      .orderBy('model_name')
      .limit(TOOLS_MAX)
      .execute();
    return rows.map((r) => ({
      ...splitModel(r.model_name),
      calls: Number(r.calls),
      quota: Number(r.quota ?? 0),
      statuses: noStatuses(),
      avg_duration_ms: 0,
    }));
  }

  /** Calls per day and server: grouped per day and tool in SQL (a day starts `offset` seconds before UTC midnight). */
  private async byDay(s: Scope, offset: number): Promise<McpDayUsage[]> {
    // Literals, not parameters: PostgreSQL matches the GROUP BY expression to the selected one only when identical.
    const shifted = sql<number>`(created_at + ${sql.lit(offset)})`;
    const day = sql<number>`${shifted} - ${shifted} % ${sql.lit(DAY_SECONDS)} - ${sql.lit(offset)}`;
    const rows = await this.k
      .selectFrom('logs')
      .where(this.where(s))
      .select((eb) => [day.as('day'), 'model_name', eb.fn.countAll<number | string>().as('calls')])
      .groupBy([day, 'model_name'])
      .limit(DAY_GROUPS_MAX)
      .execute();
    const sums = new Map<string, McpDayUsage>();
    for (const r of rows) {
      const server = splitModel(r.model_name).server;
      const key = `${Number(r.day)}:${server}`;
      const entry = sums.get(key) ?? { day: Number(r.day), server, calls: 0 };
      entry.calls += Number(r.calls);
      sums.set(key, entry);
    }
    return [...sums.values()].sort((a, b) => a.day - b.day || a.server.localeCompare(b.server));
  }

  /** Statuses and durations per tool from the newest rows' `other`, read a page at a time (keyset on id). */
  private async outcomes(s: Scope) {
    const byModel = new Map<string, { statuses: Record<McpCallStatus, number>; duration: number; read: number }>();
    let before: number | undefined;
    let read = 0;
    let complete = false;
    const older = (from: number | undefined) => {
      const q = this.k.selectFrom('logs').where(this.where(s));
      return from === undefined ? q : q.where('id', '<', from);
    };
    while (read < MCP_USAGE_ROWS_READ_MAX) {
      const limit = Math.min(PAGE_ROWS, MCP_USAGE_ROWS_READ_MAX - read);
      const page = await older(before)
        .select(['id', 'model_name', 'other'])
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      for (const r of page) {
        const o = outcomeOf(r.other);
        const entry = byModel.get(r.model_name) ?? { statuses: noStatuses(), duration: 0, read: 0 };
        if (o.status) entry.statuses[o.status]++;
        entry.duration += o.duration;
        entry.read++;
        byModel.set(r.model_name, entry);
      }
      read += page.length;
      if (page.length < limit) {
        complete = true;
        break;
      }
      before = page[page.length - 1]!.id;
    }
    // Exactly the cap read: complete only when no older row remains.
    if (!complete) complete = (await older(before).select('id').limit(1).executeTakeFirst()) === undefined;
    return { byModel, complete };
  }
}

export const mcpUsageOf = perContext((ctx: AppContext) => new McpUsage(ctx.logDb));
