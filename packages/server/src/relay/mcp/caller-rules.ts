import type { McpGroupTools, McpToolLists } from '@tollway/shared';
import type { TokenAuth } from '../entry/auth-cache.js';
import type { RelayContext } from '../pipeline/services.js';
import type { CallerToolRules } from './permissions.js';

const hasList = (l: McpToolLists) => l.allow.trim() !== '' || l.deny.trim() !== '';

/**
 * The caller's tool lists as of now: the token's and, for an organization's token, the organization's (one
 * indexed read per MCP request, so an edit applies to open sessions at their next request), and its group's.
 */
export async function loadCallerRules(ctx: RelayContext, auth: TokenAuth, group: string): Promise<CallerToolRules> {
  const row = await ctx.db.kysely
    .selectFrom('tokens as t')
    .leftJoin('organizations as o', (j) => j.on('o.id', '=', auth.orgId))
    .select(['t.mcp_allow_tools', 't.mcp_deny_tools', 'o.mcp_allow_tools as org_allow', 'o.mcp_deny_tools as org_deny'])
    .where('t.id', '=', auth.tokenId)
    .executeTakeFirst();
  const lists: McpToolLists[] = [];
  if (row) {
    lists.push({ allow: row.mcp_allow_tools, deny: row.mcp_deny_tools });
    if (auth.orgId) lists.push({ allow: row.org_allow ?? '', deny: row.org_deny ?? '' });
  }
  // The option is stored as sent (validated, defaults not filled in): a missing list is none.
  const byGroup = ctx.options.json<Record<string, Partial<McpGroupTools[string]>>>('mcp_setting.group_tools')[group];
  if (byGroup) lists.push({ allow: byGroup.allow ?? '', deny: byGroup.deny ?? '' });
  return { lists: lists.filter(hasList) };
}
