/** Strings shared by every feature. */
export default {
  zh: {
    error: {
      network: '网络错误，请检查网络连接',
      tooMany: '请求次数过多，请稍后再试',
      server: '服务器内部错误，请联系管理员',
      demo: '本站仅作演示之用，无服务端',
      http: '错误：{{message}}',
      expired: '未登录或登录已过期，请重新登录',
    },
    action: { save: '保存', cancel: '取消', confirm: '确定', submit: '提交', delete: '删除', edit: '编辑', add: '添加', search: '搜索', reset: '重置', copy: '复制', close: '关闭', refresh: '刷新' },
    notFound: { title: '页面不存在', hint: '请检查你的浏览器地址是否正确' },
  },
  en: {
    error: {
      network: 'Network error, check your connection',
      tooMany: 'Too many requests, please try again later',
      server: 'Internal server error, contact the administrator',
      demo: 'This site is for demonstration only, no backend',
      http: 'Error: {{message}}',
      expired: 'Not logged in or login expired, please log in again',
    },
    action: { save: 'Save', cancel: 'Cancel', confirm: 'OK', submit: 'Submit', delete: 'Delete', edit: 'Edit', add: 'Add', search: 'Search', reset: 'Reset', copy: 'Copy', close: 'Close', refresh: 'Refresh' },
    notFound: { title: 'Page not found', hint: 'The page does not exist; please check the address' },
  },
};
