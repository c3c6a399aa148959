import type { ChannelPublic, ChannelTagRow } from '@tollway/shared';
import {
  channelKeys,
  parseJsonObject,
  splitList,
  type ChannelRow,
  type MultiKeyInfo,
} from '../../core/routing/channel-row.js';

/** Shows a key's first 3 and last 4 characters (short keys: nothing). */
export function maskKey(key: string): string {
  const k = key.trim();
  if (k === '') return '';
  if (k.length < 16) return '********';
  return `${k.slice(0, 3)}********${k.slice(-4)}`;
}

/** The multi-key state of a row, with every field present. */
export function channelInfoOf(row: Pick<ChannelRow, 'key' | 'channel_info'>): ChannelPublic['channel_info'] {
  const info = parseJsonObject<Partial<MultiKeyInfo>>(row.channel_info, {});
  const multi = Boolean(info.is_multi_key);
  return {
    is_multi_key: multi,
    multi_key_size: multi ? channelKeys(row).length : 1,
    multi_key_mode: info.multi_key_mode === 'polling' ? 'polling' : 'random',
    multi_key_status_list: info.multi_key_status_list ?? {},
    multi_key_disabled_reason: info.multi_key_disabled_reason ?? {},
    multi_key_disabled_time: info.multi_key_disabled_time ?? {},
    multi_key_polling_index: info.multi_key_polling_index ?? 0,
  };
}

/** The key as answers show it (for a multi-key channel: the first key, masked). */
export const maskedChannelKey = (row: Pick<ChannelRow, 'key' | 'channel_info'>): string =>
  maskKey(channelKeys(row)[0] ?? '');

/** A channel as the API returns it; the key is always masked (POST /api/channel/:id/key reveals it). */
export function toPublicChannel(row: ChannelRow): ChannelPublic {
  const info = channelInfoOf(row);
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    key: maskedChannelKey(row),
    status: row.status,
    openai_organization: row.openai_organization,
    test_model: row.test_model,
    base_url: row.base_url,
    other: row.other ?? '',
    models: row.models ?? '',
    group: row.group,
    model_mapping: row.model_mapping ?? '',
    status_code_mapping: row.status_code_mapping,
    setting: row.setting ?? '',
    param_override: row.param_override ?? '',
    system_prompt: row.system_prompt ?? '',
    auto_ban: row.auto_ban,
    priority: Number(row.priority),
    weight: row.weight,
    tag: row.tag,
    model_prefix: row.model_prefix,
    max_input_tokens: row.max_input_tokens,
    expired_time: Number(row.expired_time),
    created_time: Number(row.created_time),
    test_time: Number(row.test_time),
    response_time: row.response_time,
    balance: Number(row.balance),
    balance_updated_time: Number(row.balance_updated_time),
    used_quota: Number(row.used_quota),
    other_info: row.other_info ?? '',
    channel_info: info,
    settings: row.settings ?? '',
    header_override: row.header_override ?? '',
    remark: row.remark ?? '',
  };
}

/** One tag-mode row: the tag with aggregates over its children (children ordered as the list is). */
export function toTagRow(tag: string, children: ChannelPublic[]): ChannelTagRow {
  const union = (field: 'models' | 'group') => [...new Set(children.flatMap((c) => splitList(c[field])))].join(',');
  const tested = children.filter((c) => c.response_time > 0);
  const types = new Set(children.map((c) => c.type));
  const enabled = children.filter((c) => c.status === 1).length;
  return {
    is_tag: true,
    tag,
    name: tag,
    status: enabled > 0 ? 1 : 2,
    type: types.size === 1 ? children[0]!.type : 0,
    models: union('models'),
    group: union('group'),
    priority: Math.max(...children.map((c) => c.priority)),
    weight: Math.max(...children.map((c) => c.weight)),
    response_time: tested.length ? Math.round(tested.reduce((s, c) => s + c.response_time, 0) / tested.length) : 0,
    used_quota: children.reduce((s, c) => s + c.used_quota, 0),
    balance: children.reduce((s, c) => s + c.balance, 0),
    channel_count: children.length,
    enabled_count: enabled,
    children,
  };
}
