/** Strings of the channel affinity settings, zh and en. */
const zh = {
  section: {
    affinity: {
      title: '渠道亲和',
      desc: '同一会话（prompt_cache_key、Claude Code 的 metadata.user_id、请求头或令牌）的请求发往上次服务它的渠道和密钥，以命中上游的提示缓存。渠道或密钥被禁用、熔断打开或模型映射改变时立即改路。',
    },
  },
  field: {
    channel_affinity_setting_enabled: '启用渠道亲和',
    channel_affinity_setting_switch_on_success: '失败后改用成功的渠道',
    channel_affinity_setting_keep_on_channel_disabled: '渠道禁用时保留亲和',
    channel_affinity_setting_max_entries: '单节点最多会话数',
    channel_affinity_setting_default_ttl_seconds: '默认有效期',
    channel_affinity_setting_rules: '亲和规则',
  },
  help: {
    channel_affinity_setting_switch_on_success: '亲和渠道失败、其他渠道完成请求后，会话改绑到该渠道',
    channel_affinity_setting_keep_on_channel_disabled: '渠道重新启用后会话回到原渠道',
    channel_affinity_setting_max_entries: '使用 Redis 时会话保存在 Redis 中，不受此上限限制',
    channel_affinity_setting_rules:
      'JSON 数组，字段同 new-api：name、model_regex、path_regex、user_agent_include、key_sources（gjson / request_header / context_int / context_string）、value_regex、ttl_seconds、skip_retry_on_failure、include_rule_name、include_model_name、include_using_group',
  },
  affinity: {
    cacheTitle: '亲和缓存',
    state: '状态',
    on: '已启用',
    off: '已关闭',
    total: '会话数',
    unknown: '未知规则',
    capacity: '容量',
    redis: 'Redis（不限）',
    clearAll: '全部清空',
    clearAllConfirm: '清空全部会话的亲和？下一次请求将重新选择渠道。',
    clearRuleConfirm: '清空规则“{{rule}}”的会话？',
    cleared: '已清除 {{count}} 个会话',
    seconds: '秒',
  },
};

const en: typeof zh = {
  section: {
    affinity: {
      title: 'Channel affinity',
      desc: "Calls of one session (prompt_cache_key, Claude Code's metadata.user_id, a header or the token) go to the channel and key that served it last, so the provider's prompt cache is read. They move at once when that channel or key is disabled, its breaker opens or the model mapping changes.",
    },
  },
  field: {
    channel_affinity_setting_enabled: 'Enable channel affinity',
    channel_affinity_setting_switch_on_success: 'Move to the channel that served after a failure',
    channel_affinity_setting_keep_on_channel_disabled: 'Keep sessions of a disabled channel',
    channel_affinity_setting_max_entries: 'Sessions per node',
    channel_affinity_setting_default_ttl_seconds: 'Default lifetime',
    channel_affinity_setting_rules: 'Affinity rules',
  },
  help: {
    channel_affinity_setting_switch_on_success:
      'When the pinned channel fails and another serves the call, the session moves there',
    channel_affinity_setting_keep_on_channel_disabled: 'Sessions return to the channel when it is enabled again',
    channel_affinity_setting_max_entries: 'With Redis the sessions are kept in Redis, without this cap',
    channel_affinity_setting_rules:
      "JSON list with new-api's fields: name, model_regex, path_regex, user_agent_include, key_sources (gjson / request_header / context_int / context_string), value_regex, ttl_seconds, skip_retry_on_failure, include_rule_name, include_model_name, include_using_group",
  },
  affinity: {
    cacheTitle: 'Affinity cache',
    state: 'State',
    on: 'On',
    off: 'Off',
    total: 'Sessions',
    unknown: 'Unknown rules',
    capacity: 'Capacity',
    redis: 'Redis (no cap)',
    clearAll: 'Clear all',
    clearAllConfirm: 'Clear the affinity of every session? Their next calls choose a channel afresh.',
    clearRuleConfirm: 'Clear the sessions of rule "{{rule}}"?',
    cleared: '{{count}} sessions cleared',
    seconds: 's',
  },
};

export default { zh, en };
