/** Strings of the MCP gateway's settings section (zh, en). */
const zh = {
  section: {
    mcp: {
      title: 'MCP 工具',
      desc: '按用户分组限制可通过 /mcp 使用的工具；服务器的注册与规则在“MCP 服务”页面。',
    },
  },
  field: { mcp_setting_group_tools: '各分组可用的 MCP 工具' },
  help: {
    mcp_setting_group_tools:
      'JSON 对象：键为用户分组，值为 {"allow": "…", "deny": "…"}，均为逗号分隔的 <服务器>__<工具> 模式，* 代表任意字符；allow 留空为不限制，deny 优先。未列出的分组不受限制',
  },
};

const en: typeof zh = {
  section: {
    mcp: {
      title: 'MCP tools',
      desc: 'Which tools each user group may use through /mcp; servers and their own rules are on the MCP page.',
    },
  },
  field: { mcp_setting_group_tools: 'MCP tools per group' },
  help: {
    mcp_setting_group_tools:
      'A JSON object: user group → {"allow": "…", "deny": "…"}, each a comma-separated list of <server>__<tool> patterns, * for any characters; an empty allow list allows every tool, deny wins. A group not listed is not limited',
  },
};

export default { zh, en };
