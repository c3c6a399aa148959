/** Strings of the preset ratio sources (visual editor) and the fill from the official preset (unset models), zh and en. */
const zh = {
  preset: {
    open: '预设倍率',
    title: '从预设源获取倍率',
    source: '预设源',
    sources: { flexible: '通用（默认，推荐）', openrouter: 'OpenRouter', mixed: '混合', legacy: '传统（不推荐）' },
    kind: { added: '新增', changed: '变更', unchanged: '不变', priced: '固定价格（保留）' },
    count: '{{label}}：{{count}}',
    nothing: '预设与当前倍率一致，没有需要填充的模型',
    fillMissing: '仅填充缺失模型（{{count}}）',
    fillAll: '填充全部（{{count}}）',
    note: '填充的倍率先写入编辑器，点击「保存更改」后才会生效；设置了固定价格的模型保持不变。预设文件由服务器经出站请求防护获取。',
    staged: '已填充 {{count}} 个模型，请检查后点击「保存更改」',
    fetchFailed: '获取预设倍率失败，请重试',
    official: '从官方填充',
    officialTitle: '从官方预设填充倍率？',
    officialBody: '{{total}} 个未设置倍率的模型中，官方预设包含 {{count}} 个；将写入它们的模型倍率与补全倍率并保存。',
    officialOk: '填充并保存',
    officialNone: '官方预设中没有这些未设置倍率的模型',
    officialFailed: '填充官方倍率失败，请稍后再试',
    andMore: '等另外 {{count}} 个',
  },
};

const en: typeof zh = {
  preset: {
    open: 'Preset ratios',
    title: 'Get ratios from a preset source',
    source: 'Preset source',
    sources: {
      flexible: 'Flexible (default, recommended)',
      openrouter: 'OpenRouter',
      mixed: 'Mixed',
      legacy: 'Legacy (not recommended)',
    },
    kind: { added: 'Added', changed: 'Changed', unchanged: 'Unchanged', priced: 'Fixed price (kept)' },
    count: '{{label}}: {{count}}',
    nothing: 'The preset matches the current ratios: nothing to fill',
    fillMissing: 'Fill missing models only ({{count}})',
    fillAll: 'Fill all ({{count}})',
    note: 'Filled ratios go into the editor first and apply only after Save changes; models with a fixed price stay as they are. The server fetches the preset files through the outbound request guard.',
    staged: 'Filled from the preset: {{count}}. Review, then click Save changes',
    fetchFailed: 'Get preset ratios failed, please retry',
    official: 'Fill from official',
    officialTitle: 'Fill ratios from the official preset?',
    officialBody:
      'The official preset names {{count}} of the {{total}} models with no ratio set; their model and completion ratios will be written and saved.',
    officialOk: 'Fill and save',
    officialNone: 'The official preset names none of the models with no ratio set',
    officialFailed: 'Fill official ratios failed, please try again later',
    andMore: 'and {{count}} more',
  },
};

export default { zh, en };
