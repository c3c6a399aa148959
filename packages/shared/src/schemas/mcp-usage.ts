import { z } from 'zod';
import { epochSecondsFilter } from './log.js';

/** The statuses a tool call's log row records (`other.mcp_status`). */
export const MCP_CALL_STATUSES = ['ok', 'tool_error', 'error', 'cancelled'] as const;
export type McpCallStatus = (typeof MCP_CALL_STATUSES)[number];

/** The longest range GET /api/mcp/usage answers (inclusive bounds). */
export const MCP_USAGE_RANGE_MAX_DAYS = 92;
/** Most minutes a day's start may be moved from UTC midnight (the console's time zone). */
const UTC_OFFSET_MAX_MINUTES = 14 * 60;

/**
 * GET /api/mcp/usage: tool calls of a range (created_at, inclusive), optionally of one server; days start at
 * midnight `utc_offset` minutes east of UTC (the console's time zone).
 */
export const mcpUsageQuery = z.object({
  start_timestamp: epochSecondsFilter('start_timestamp'),
  end_timestamp: epochSecondsFilter('end_timestamp'),
  server: z.string().trim().max(64).optional(),
  utc_offset: z.coerce.number().int().min(-UTC_OFFSET_MAX_MINUTES).max(UTC_OFFSET_MAX_MINUTES).default(0),
});
export type McpUsageQuery = z.infer<typeof mcpUsageQuery>;

const counts = z.object(
  Object.fromEntries(MCP_CALL_STATUSES.map((s) => [s, z.number().int()])) as Record<McpCallStatus, z.ZodNumber>,
);

/** One tool's calls in the range: the quota charged, calls by status and their average duration. */
export const mcpToolUsage = z.object({
  server: z.string(),
  tool: z.string(),
  calls: z.number().int(),
  quota: z.number().int(),
  statuses: counts,
  /** Average of the rows' duration_ms among the rows read for statuses (0 when none). */
  avg_duration_ms: z.number().int(),
});
export type McpToolUsage = z.infer<typeof mcpToolUsage>;

/** One day's calls of one server (day: the epoch second the day starts). */
export const mcpDayUsage = z.object({ day: z.number().int(), server: z.string(), calls: z.number().int() });
export type McpDayUsage = z.infer<typeof mcpDayUsage>;

export const mcpUsageAnswer = z.object({
  tools: z.array(mcpToolUsage),
  days: z.array(mcpDayUsage),
  /**
   * Calls, quota and days are counted in SQL over every row; statuses and durations are read from each row's
   * `other`, at most `rows_read_max` rows (the newest first): `statuses_complete` false when the range held more.
   */
  statuses_complete: z.boolean(),
  rows_read_max: z.number().int(),
});
export type McpUsageAnswer = z.infer<typeof mcpUsageAnswer>;

/** A tool as GET /api/mcp/servers/:id/tools answers it: the server's own listing and whether its rules let it through. */
export const mcpServerTool = z.object({
  name: z.string(),
  description: z.string(),
  /** The server's annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title). */
  annotations: z.record(z.string(), z.unknown()),
  read_only: z.boolean(),
  /** Whether the server's allow/deny lists and its read-only rule let the tool through (before any caller's lists). */
  permitted: z.boolean(),
});
export type McpServerTool = z.infer<typeof mcpServerTool>;
