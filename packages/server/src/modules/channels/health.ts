import type { ChannelListRow, ChannelPublic } from '@tollway/shared';
import type { ChannelBreakers } from '../../core/routing/breakers.js';
import type { ChannelPage } from './listing.js';

/** A multi-key channel's enabled key indexes (its status list names the others); undefined for one key. */
function enabledKeys(c: ChannelPublic): number[] | undefined {
  const info = c.channel_info;
  if (!info.is_multi_key) return undefined;
  return Array.from({ length: info.multi_key_size }, (_, i) => i).filter(
    (i) => (info.multi_key_status_list[String(i)] ?? 1) === 1,
  );
}

/** List rows with each channel's breaker health as this node sees it (a tag row's children each get theirs). */
export function withHealth(breakers: ChannelBreakers, page: ChannelPage): ChannelPage {
  const withOne = (c: ChannelPublic): ChannelPublic => ({ ...c, health: breakers.health(c.id, enabledKeys(c)) });
  const items: ChannelListRow[] = page.items.map((row) =>
    'is_tag' in row ? { ...row, children: row.children.map(withOne) } : withOne(row),
  );
  return { ...page, items };
}
