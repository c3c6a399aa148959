const zh = {
  title: '收件箱',
  subtitle: '管理员发送给您的消息',
  empty: '暂无消息',
  unread: '未读',
  read: '已读',
  back: '返回收件箱',
  sentAt: '发送于 {{time}}',
  loadFailed: '加载消息失败',
  missing: '消息不存在',
  pageInfo: '第 {{start}} - {{end}} 条，共 {{total}} 条',
  format: { markdown: 'Markdown 格式', html: 'HTML 格式' },
};

const en: typeof zh = {
  title: 'Inbox',
  subtitle: 'Messages from the administrators',
  empty: 'No messages',
  unread: 'Unread',
  read: 'Read',
  back: 'Back to inbox',
  sentAt: 'Sent {{time}}',
  loadFailed: 'failed to load messages',
  missing: 'message does not exist',
  pageInfo: 'Items {{start}} - {{end}} of {{total}}',
  format: { markdown: 'Markdown', html: 'HTML' },
};

export default { zh, en };
