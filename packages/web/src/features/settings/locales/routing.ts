/** Strings of the routing strategy settings, zh and en. */
const zh = {
  field: { RoutingStrategy: '路由策略（JSON）' },
  help: {
    RoutingStrategy: '{"default": "weighted", "groups": {"vip": "latency"}, "models": {"gpt-4o": "lowest_price"}}',
  },
  section: {
    routing: {
      title: '路由策略',
      desc: '同一优先级内如何选择渠道：默认策略，以及按分组或模型单独设置（模型的设置优先于分组）。优先级始终最先生效。',
    },
  },
  routing: {
    default: '默认策略',
    rules: '按分组或模型',
    rulesHelp: '模型的设置优先于其分组的设置，分组的设置优先于默认策略。',
    scope: '范围',
    group: '分组',
    model: '模型',
    name: '名称',
    strategyLabel: '策略',
    add: '添加',
    duplicate: '同一分组或模型只能设置一次',
    nameRequired: '请填写分组或模型名称',
    broken: '当前设置不是可编辑的格式，请直接修改 JSON。',
    strategy: {
      weighted: '加权随机',
      least_inflight: '最少进行中请求',
      latency: '最低延迟',
      lowest_price: '最低价格',
    },
    when: {
      weighted: '按渠道权重随机分配：渠道相近、希望按比例分流时使用。',
      least_inflight: '发往进行中请求最少的渠道：请求耗时差异大（长流式输出）时使用。',
      latency: '按观测到的延迟（指数加权平均，二选一）选择：渠道速度不同、重视响应速度时使用。',
      lowest_price: '发往映射后模型价格最低的渠道，同价再看延迟：渠道成本不同、重视利润时使用。',
    },
  },
};

const en: typeof zh = {
  field: { RoutingStrategy: 'Routing strategies (JSON)' },
  help: {
    RoutingStrategy: '{"default": "weighted", "groups": {"vip": "latency"}, "models": {"gpt-4o": "lowest_price"}}',
  },
  section: {
    routing: {
      title: 'Routing strategies',
      desc: "How a channel is chosen inside a priority tier: the default strategy, and one per group or model (a model's over its group's). Priority tiers always come first.",
    },
  },
  routing: {
    default: 'Default strategy',
    rules: 'Per group or model',
    rulesHelp: "A model's entry wins over its group's, a group's over the default.",
    scope: 'Scope',
    group: 'Group',
    model: 'Model',
    name: 'Name',
    strategyLabel: 'Strategy',
    add: 'Add',
    duplicate: 'Each group or model can be set once',
    nameRequired: 'Enter a group or model name',
    broken: 'The stored setting is not in the editable shape; edit its JSON directly.',
    strategy: {
      weighted: 'Weighted random',
      least_inflight: 'Least in flight',
      latency: 'Lowest latency',
      lowest_price: 'Lowest price',
    },
    when: {
      weighted: 'Random by channel weight: similar channels, traffic split in proportion.',
      least_inflight: 'The channel with the fewest calls in flight: calls of very different lengths (long streams).',
      latency: 'By observed latency (EWMA, power of two choices): channels of different speed, when speed matters.',
      lowest_price: 'The channel whose mapped model is cheapest, then latency: channels of different cost, for margin.',
    },
  },
};

export default { zh, en };
