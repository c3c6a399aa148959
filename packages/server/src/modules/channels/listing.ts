import type { ChannelListRow, ChannelPublic } from '@tollway/shared';
import { pageWindow, type Page, type PageQuery } from '../../db/paging.js';
import type { ChannelFilter, ChannelOrder, ChannelsStore } from './store.js';
import { toPublicChannel, toTagRow } from './view.js';

export interface ListRequest extends ChannelFilter, PageQuery {
  id_sort?: boolean;
  tag_mode?: boolean;
}

export type ChannelPage = Page<ChannelListRow>;

interface Entry {
  /** Tag rows carry their tag; an untagged channel is its own row. */
  tag: string;
  id: number;
  priority: number;
  ids: number[];
}

/**
 * The channel list and search. Keys are always masked. In tag mode every tag becomes one row (children inside)
 * and untagged channels stay rows of their own; paging counts rows. A tag row sorts by its newest child id
 * (id_sort) or by its highest child priority then newest id.
 */
export async function listChannels(store: ChannelsStore, req: ListRequest): Promise<ChannelPage> {
  const { page, offset, limit } = pageWindow(req);
  const order: ChannelOrder = req.id_sort ? 'id' : 'priority';
  if (!req.tag_mode) {
    const { items, total } = await store.page(req, order, { offset, limit });
    return { items: items.map((r) => toPublicChannel(r)), page, page_size: req.page_size, total };
  }
  const entries = new Map<string, Entry>();
  for (const r of await store.outline(req)) {
    const key = r.tag ? `t:${r.tag}` : `c:${r.id}`;
    const priority = Number(r.priority);
    const e = entries.get(key);
    if (!e) entries.set(key, { tag: r.tag, id: r.id, priority, ids: [r.id] });
    else {
      e.ids.push(r.id);
      e.id = Math.max(e.id, r.id);
      e.priority = Math.max(e.priority, priority);
    }
  }
  const sorted = [...entries.values()].sort((a, b) =>
    order === 'id' ? b.id - a.id : b.priority - a.priority || b.id - a.id,
  );
  const slice = sorted.slice(offset, offset + limit);
  const rows = await store.findMany(slice.flatMap((e) => e.ids));
  const byId = new Map(rows.map((r) => [r.id, toPublicChannel(r)]));
  const childOrder = (a: ChannelPublic, b: ChannelPublic) =>
    order === 'id' ? b.id - a.id : b.priority - a.priority || b.id - a.id;
  const items: ChannelListRow[] = [];
  for (const e of slice) {
    const children = e.ids.map((id) => byId.get(id)).filter((c): c is ChannelPublic => c !== undefined);
    if (children.length === 0) continue;
    items.push(e.tag ? toTagRow(e.tag, children.sort(childOrder)) : children[0]!);
  }
  return { items, page, page_size: req.page_size, total: sorted.length };
}
