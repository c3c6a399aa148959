import { RelayError } from '../../pipeline/errors.js';

/** How many `mcp` tools one request may name. */
export const MCP_TOOLS_PER_REQUEST_MAX = 16;
/** How many names an `allowed_tools` list may hold. */
const ALLOWED_TOOLS_MAX = 1000;

/** An `mcp` tool of a Responses request, as Tollway reads it (OpenAI's fields; `headers` are never forwarded). */
export interface McpToolSpec {
  /** The registered Tollway MCP server's name. */
  label: string;
  /** Only these tools (absent: every permitted tool). */
  names: Set<string> | undefined;
  /** Only tools the server annotates read-only (`allowed_tools: {read_only: true}`). */
  readOnly: boolean;
  /** The caller's `server_url`: it must be the registered server's own. */
  url: string | undefined;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const mcpRefusal = (message: string, code: string, param: string | null = null) =>
  new RelayError(400, message, 'invalid_request_error', code, param);

/** Whether a request's tools include an `mcp` tool. */
export const hasMcpTool = (tools: unknown): boolean =>
  Array.isArray(tools) && tools.some((t) => isObject(t) && t.type === 'mcp');

function namesOf(v: unknown, param: string): string[] {
  if (!Array.isArray(v) || v.length > ALLOWED_TOOLS_MAX || v.some((n) => typeof n !== 'string'))
    throw mcpRefusal(`${param} must be a list of at most ${ALLOWED_TOOLS_MAX} tool names`, 'invalid_value', param);
  return v as string[];
}

/** `require_approval`: "never" (or absent) is all Tollway runs; anything else asks for approvals it does not give. */
function checkApproval(v: unknown, param: string): void {
  if (v === undefined || v === null || v === 'never') return;
  throw mcpRefusal(
    'require_approval must be "never" (or absent): Tollway runs MCP tools without approval requests ' +
      '(mcp_approval_request is not supported)',
    'unsupported_parameter',
    param,
  );
}

/** One `mcp` tool entry, checked. */
function specOf(t: Json, i: number): McpToolSpec {
  const at = `tools[${i}]`;
  if (typeof t.server_label !== 'string' || !t.server_label)
    throw mcpRefusal(`${at}.server_label must name a registered MCP server`, 'invalid_value', `${at}.server_label`);
  for (const field of ['connector_id', 'tunnel_id'] as const)
    if (t[field] !== undefined && t[field] !== null)
      throw mcpRefusal(
        `${at}.${field} is not supported: name a registered MCP server in server_label`,
        'unsupported_parameter',
        `${at}.${field}`,
      );
  if (t.server_url !== undefined && t.server_url !== null && typeof t.server_url !== 'string')
    throw mcpRefusal(`${at}.server_url must be a string`, 'invalid_value', `${at}.server_url`);
  checkApproval(t.require_approval, `${at}.require_approval`);
  let names: Set<string> | undefined;
  let readOnly = false;
  const allowed = t.allowed_tools;
  if (Array.isArray(allowed)) names = new Set(namesOf(allowed, `${at}.allowed_tools`));
  else if (isObject(allowed)) {
    if (allowed.tool_names !== undefined && allowed.tool_names !== null)
      names = new Set(namesOf(allowed.tool_names, `${at}.allowed_tools.tool_names`));
    readOnly = allowed.read_only === true;
  } else if (allowed !== undefined && allowed !== null)
    throw mcpRefusal(
      `${at}.allowed_tools must be a list of tool names or a filter`,
      'invalid_value',
      `${at}.allowed_tools`,
    );
  return {
    label: t.server_label.slice(0, 200),
    names,
    readOnly,
    url: typeof t.server_url === 'string' && t.server_url ? t.server_url : undefined,
  };
}

/** The request's `mcp` tools, checked (a label named twice, or too many of them, is refused). */
export function mcpSpecsOf(tools: unknown[]): McpToolSpec[] {
  const specs: McpToolSpec[] = [];
  tools.forEach((t, i) => {
    if (isObject(t) && t.type === 'mcp') specs.push(specOf(t, i));
  });
  if (specs.length > MCP_TOOLS_PER_REQUEST_MAX)
    throw mcpRefusal(`at most ${MCP_TOOLS_PER_REQUEST_MAX} mcp tools per request`, 'invalid_value', 'tools');
  const labels = new Set(specs.map((s) => s.label));
  if (labels.size !== specs.length)
    throw mcpRefusal('each mcp tool must name a different server_label', 'invalid_value', 'tools');
  return specs;
}

/** Whether the caller's server_url is the registered server's (compared as parsed URLs, a trailing slash aside). */
export function sameServerUrl(given: string, registered: string): boolean {
  const norm = (u: string) => {
    try {
      const p = new URL(u);
      return `${p.protocol}//${p.host}${p.pathname.replace(/\/+$/, '')}${p.search}`;
    } catch {
      return undefined;
    }
  };
  const a = norm(given);
  return a !== undefined && registered !== '' && a === norm(registered);
}
