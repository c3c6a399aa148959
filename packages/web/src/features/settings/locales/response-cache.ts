/** Strings of the response cache settings, zh and en. */
const zh = {
  section: {
    responseCache: {
      title: '响应缓存',
      desc: '同一作用域（令牌、用户或分组）内完全相同的请求直接返回已缓存的回答，不再请求上游；流式回答按原事件重放。仅对下面列出的模型、分组或令牌生效。响应头 x-tollway-cache 为 hit / miss，日志标记为缓存命中。',
    },
  },
  field: {
    response_cache_enabled: '启用响应缓存',
    response_cache_scope: '共享范围',
    response_cache_models: '缓存的模型',
    response_cache_groups: '缓存的分组',
    response_cache_tokens: '缓存的令牌 ID',
    response_cache_ttl_seconds: '有效期（秒）',
    response_cache_hit_price_share: '命中计费比例',
    response_cache_max_entries: '最多缓存条数',
    response_cache_max_answer_bytes: '单条回答最大字节数',
    response_cache_semantic_enabled: '语义匹配',
    response_cache_semantic_model: '嵌入模型',
    response_cache_semantic_threshold: '相似度阈值',
  },
  help: {
    response_cache_scope: '回答只会返回给同一令牌、同一用户或同一分组的请求，绝不跨范围',
    response_cache_models: 'JSON 数组，如 ["gpt-4o-mini"]；"*" 表示所有模型',
    response_cache_groups: 'JSON 数组，如 ["vip"]',
    response_cache_tokens: 'JSON 数组，如 [12, 15]',
    response_cache_hit_price_share: '命中按缓存用量 × 当前价格 × 此比例计费（向下取整）；0 表示免费',
    response_cache_max_entries: '超出时先淘汰最早过期的回答',
    response_cache_max_answer_bytes: '更大的回答不缓存',
    response_cache_semantic_enabled:
      '未完全相同的请求再按提示词的嵌入向量查找相似的已缓存请求（同一范围、其他参数完全相同）',
    response_cache_semantic_model: '由调用方分组中 OpenAI 格式的渠道提供的嵌入模型；其调用费用由运营方承担',
    response_cache_semantic_threshold: '余弦相似度不低于此值才命中',
  },
  enum: {
    response_cache_scope: { token: '令牌', user: '用户', group: '分组' },
  },
};

const en: typeof zh = {
  section: {
    responseCache: {
      title: 'Response cache',
      desc: 'A request identical to one already answered within the same scope (token, user or group) gets the cached answer with no upstream call; a streamed answer is replayed as its events. Only for the models, groups or tokens listed below. The x-tollway-cache header says hit or miss; the log marks a hit.',
    },
  },
  field: {
    response_cache_enabled: 'Enable the response cache',
    response_cache_scope: 'Shared within',
    response_cache_models: 'Cached models',
    response_cache_groups: 'Cached groups',
    response_cache_tokens: 'Cached token ids',
    response_cache_ttl_seconds: 'Time to live (seconds)',
    response_cache_hit_price_share: 'Share of the price billed on a hit',
    response_cache_max_entries: 'Most answers kept',
    response_cache_max_answer_bytes: 'Largest answer kept (bytes)',
    response_cache_semantic_enabled: 'Semantic matching',
    response_cache_semantic_model: 'Embeddings model',
    response_cache_semantic_threshold: 'Similarity threshold',
  },
  help: {
    response_cache_scope: 'An answer is only given to calls of the same token, user or group: never across scopes',
    response_cache_models: 'A JSON array, e.g. ["gpt-4o-mini"]; "*" for every model',
    response_cache_groups: 'A JSON array, e.g. ["vip"]',
    response_cache_tokens: 'A JSON array, e.g. [12, 15]',
    response_cache_hit_price_share:
      'A hit is billed at the cached usage × the current price × this share (rounded down); 0 is free',
    response_cache_max_entries: 'When full, the answers soonest to expire go first',
    response_cache_max_answer_bytes: 'Larger answers are not kept',
    response_cache_semantic_enabled:
      'A request not found as it is is looked up by its prompt embedding among similar cached requests (same scope, every other parameter equal)',
    response_cache_semantic_model:
      "An embeddings model served by an OpenAI-format channel of the caller's group; its calls are the operator's cost",
    response_cache_semantic_threshold: 'The least cosine similarity of a hit',
  },
  enum: {
    response_cache_scope: { token: 'Token', user: 'User', group: 'Group' },
  },
};

export default { zh, en };
