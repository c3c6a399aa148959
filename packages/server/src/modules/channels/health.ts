import type { ChannelListRow } from '@tollway/shared';
import type { ChannelBreakers } from '../../core/routing/breakers.js';
import type { ChannelPage } from './listing.js';

/** List rows with each channel's breaker health as this node sees it (a tag row's children each get theirs). */
export function withHealth(breakers: ChannelBreakers, page: ChannelPage): ChannelPage {
  const items: ChannelListRow[] = page.items.map((row) =>
    'is_tag' in row ? { ...row, children: row.children.map((c) => ({ ...c, health: breakers.health(c.id) })) } : { ...row, health: breakers.health(row.id) },
  );
  return { ...page, items };
}
