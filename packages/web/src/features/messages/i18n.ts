const zh = {
  title: '消息管理',
  subtitle: '向用户发送站内消息',
  create: '新建消息',
  search: '搜索',
  keyword: '搜索标题或内容',
  column: { id: 'ID', title: '标题', format: '格式', created: '创建时间', recipients: '接收人数', read: '已读人数', actions: '操作' },
  action: { edit: '编辑', delete: '删除' },
  confirmDelete: '确定删除此消息？接收人的收件记录也将被永久删除。',
  drawer: { create: '新建消息', edit: '编辑消息' },
  field: { title: '标题', format: '格式', content: '内容', recipients: '接收人', id: '消息 ID', created: '创建时间', total: '接收人数', read: '已读人数' },
  placeholder: { title: '消息标题', content: '支持 Markdown 或 HTML', recipients: '搜索用户名并选择' },
  recipients: { user: '用户', displayName: '显示名称', readAt: '阅读时间', unread: '未读' },
  validation: { title: '请输入标题', content: '请输入内容', recipients: '请至少选择一个接收人' },
  toast: { created: '消息已发送', updated: '消息已更新', deleted: '消息已删除' },
  empty: '暂无消息',
};

const en: typeof zh = {
  title: 'Messages',
  subtitle: 'Send messages to users’ inboxes',
  create: 'New message',
  search: 'Search',
  keyword: 'Search title or content',
  column: { id: 'ID', title: 'Title', format: 'Format', created: 'Created', recipients: 'Recipients', read: 'Read', actions: 'Actions' },
  action: { edit: 'Edit', delete: 'Delete' },
  confirmDelete: 'Delete this message? Its recipients’ receipts are removed permanently.',
  drawer: { create: 'New message', edit: 'Edit message' },
  field: { title: 'Title', format: 'Format', content: 'Content', recipients: 'Recipients', id: 'Message ID', created: 'Created', total: 'Recipients', read: 'Read' },
  placeholder: { title: 'Message title', content: 'Markdown or HTML', recipients: 'Search usernames and pick' },
  recipients: { user: 'User', displayName: 'Display name', readAt: 'Read at', unread: 'Unread' },
  validation: { title: 'title is required', content: 'content is required', recipients: 'pick at least one recipient' },
  toast: { created: 'message sent', updated: 'message updated', deleted: 'message deleted' },
  empty: 'No messages',
};

export default { zh, en };
