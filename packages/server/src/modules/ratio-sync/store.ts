import type { Db } from '../../db/connect.js';

/** What price sync reads of a channel: never its key nor settings. */
export interface ChannelSource {
  id: number;
  name: string;
  type: number;
  status: number;
  base_url: string;
}

/** Channels as price sources, every status, by id. */
export async function channelSources(db: Db, ids?: number[]): Promise<ChannelSource[]> {
  if (ids && ids.length === 0) return [];
  let q = db.kysely.selectFrom('channels').select(['id', 'name', 'type', 'status', 'base_url']).orderBy('id');
  if (ids) q = q.where('id', 'in', ids);
  return q.execute();
}
