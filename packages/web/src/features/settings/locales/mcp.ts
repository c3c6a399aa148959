/** Strings of the MCP gateway's settings section (zh, en). */
const zh = {
  section: {
    mcp: {
      title: 'MCP 工具',
      desc: '按用户分组限制可通过 /mcp 使用的工具，以及 Responses API 的远程 MCP 工具；服务器的注册与规则在“MCP 服务”页面。',
    },
  },
  field: {
    mcp_setting_group_tools: '各分组可用的 MCP 工具',
    mcp_setting_responses_tools_enabled: 'Responses API 的远程 MCP 工具',
  },
  help: {
    mcp_setting_responses_tools_enabled:
      '开启后，/v1/responses 请求中的 {"type": "mcp"} 工具由 Tollway 按 server_label 对应到已注册的 MCP 服务器执行（不访问调用方给出的 URL，不转发其 headers），每轮模型调用与每次工具调用分别计费；关闭时照原样转发',
    mcp_setting_group_tools:
      'JSON 对象：键为用户分组，值为 {"allow": "…", "deny": "…"}，均为逗号分隔的 <服务器>__<工具> 模式，* 代表任意字符；allow 留空为不限制，deny 优先。未列出的分组不受限制',
  },
};

const en: typeof zh = {
  section: {
    mcp: {
      title: 'MCP tools',
      desc: 'Which tools each user group may use through /mcp, and remote MCP tools in the Responses API; servers and their own rules are on the MCP page.',
    },
  },
  field: {
    mcp_setting_group_tools: 'MCP tools per group',
    mcp_setting_responses_tools_enabled: 'Remote MCP tools in the Responses API',
  },
  help: {
    mcp_setting_responses_tools_enabled:
      'On: {"type": "mcp"} tools of /v1/responses requests are run by Tollway on the registered MCP server their server_label names (a caller\'s URL is never reached, its headers never sent); each model round and each tool call is billed. Off: passed through as they are',
    mcp_setting_group_tools:
      'A JSON object: user group → {"allow": "…", "deny": "…"}, each a comma-separated list of <server>__<tool> patterns, * for any characters; an empty allow list allows every tool, deny wins. A group not listed is not limited',
  },
};

export default { zh, en };
