/** Strings of the outbound request guard section (zh, en). */
const zh = {
  section: {
    fetch: {
      title: '出站请求防护（SSRF）',
      desc: '服务器代用户访问的地址（如额度预警 Webhook）都经过这里的检查：先解析域名、检查每个解析出的地址，再连接检查过的地址，且不跟随重定向。管理员配置的渠道地址不受此限制。',
    },
  },
  fetch: { denyList: '黑名单', allowList: '白名单' },
  field: {
    fetch_setting_enable_ssrf_protection: '启用 SSRF 防护',
    fetch_setting_allow_private_ip: '允许访问私有 IP 地址',
    fetch_setting_apply_ip_filter_for_domain: '对域名解析出的 IP 应用 IP 过滤',
    fetch_setting_domain_filter_mode: '域名过滤模式',
    fetch_setting_domain_list: '域名列表',
    fetch_setting_ip_filter_mode: 'IP 过滤模式',
    fetch_setting_ip_list: 'IP 列表',
    fetch_setting_allowed_ports: '允许的端口',
  },
  help: {
    fetch_setting_enable_ssrf_protection: '关闭后不再检查任何用户提供的地址（不推荐）',
    fetch_setting_allow_private_ip:
      '开启后可访问回环、内网（10/8、172.16/12、192.168/16、100.64/10）、链路本地（含云元数据 169.254.169.254）等地址',
    fetch_setting_apply_ip_filter_for_domain: '私有地址检查始终作用于解析结果；此项决定 IP 列表是否也作用于解析结果',
    fetch_setting_domain_list:
      '每行一个，如 example.com；*.example.com 同时匹配 example.com 及其子域名。白名单模式下列表为空则拒绝所有域名',
    fetch_setting_ip_list: '每行一个 IP 或 CIDR，如 203.0.113.7、10.0.0.0/8。白名单模式下列表为空则拒绝所有 IP',
    fetch_setting_allowed_ports: '以逗号分隔的端口或范围，如 80, 443, 8000-9000；留空允许所有端口',
  },
};

const en: typeof zh = {
  section: {
    fetch: {
      title: 'Outbound requests (SSRF guard)',
      desc: 'Every address the server calls for a user (such as low-quota webhooks) is checked here: the host is resolved, every address it resolves to is checked, the connection goes to a checked address, and redirects are not followed. Channel addresses set by administrators are not restricted.',
    },
  },
  fetch: { denyList: 'Deny list', allowList: 'Allow list' },
  field: {
    fetch_setting_enable_ssrf_protection: 'Enable SSRF protection',
    fetch_setting_allow_private_ip: 'Allow private IP addresses',
    fetch_setting_apply_ip_filter_for_domain: 'Apply the IP filter to resolved domains',
    fetch_setting_domain_filter_mode: 'Domain filter mode',
    fetch_setting_domain_list: 'Domain list',
    fetch_setting_ip_filter_mode: 'IP filter mode',
    fetch_setting_ip_list: 'IP list',
    fetch_setting_allowed_ports: 'Allowed ports',
  },
  help: {
    fetch_setting_enable_ssrf_protection: 'When off, no user-supplied address is checked (not recommended)',
    fetch_setting_allow_private_ip:
      'Lets user URLs reach loopback, private (10/8, 172.16/12, 192.168/16, 100.64/10), link-local (including cloud metadata at 169.254.169.254) and other special addresses',
    fetch_setting_apply_ip_filter_for_domain:
      'Private addresses are always refused after resolution; this decides whether the IP list applies to resolved addresses too',
    fetch_setting_domain_list:
      'One per line, e.g. example.com; *.example.com matches example.com and its subdomains. An empty allow list refuses every domain',
    fetch_setting_ip_list:
      'One IP or CIDR block per line, e.g. 203.0.113.7 or 10.0.0.0/8. An empty allow list refuses every address',
    fetch_setting_allowed_ports:
      'Ports or ranges separated by commas, e.g. 80, 443, 8000-9000; empty allows every port',
  },
};

export default { zh, en };
