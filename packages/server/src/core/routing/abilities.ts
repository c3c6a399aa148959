import type { Insertable, Kysely, Transaction } from 'kysely';
import type { AbilitiesTable, Database } from '../../db/schema.js';
import { splitList, type ChannelRow } from './channel-row.js';

type Executor = Kysely<Database> | Transaction<Database>;

type AbilitySource = Pick<ChannelRow, 'id' | 'models' | 'group' | 'status' | 'priority' | 'weight' | 'tag'>;

/** One ability per group × model of a channel; enabled only while the channel's status is 1. */
export function abilityRows(ch: AbilitySource): Insertable<AbilitiesTable>[] {
  const out: Insertable<AbilitiesTable>[] = [];
  const models = [...new Set(splitList(ch.models))];
  for (const group of new Set(splitList(ch.group))) {
    for (const model of models) {
      out.push({
        group,
        model,
        channel_id: ch.id,
        enabled: ch.status === 1 ? 1 : 0,
        priority: Number(ch.priority),
        weight: ch.weight,
        tag: ch.tag,
      });
    }
  }
  return out;
}

/** Rows per INSERT: 7 parameters each keeps every dialect well under its parameter limit. */
const CHUNK = 500;

async function insertAbilities(ex: Executor, rows: Insertable<AbilitiesTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await ex
      .insertInto('abilities')
      .values(rows.slice(i, i + CHUNK))
      .execute();
  }
}

export async function deleteAbilities(ex: Executor, channelIds: number[]): Promise<void> {
  for (let i = 0; i < channelIds.length; i += CHUNK) {
    await ex
      .deleteFrom('abilities')
      .where('channel_id', 'in', channelIds.slice(i, i + CHUNK))
      .execute();
  }
}

/** Replaces the abilities of the given channels (call inside the transaction that wrote them). */
export async function rebuildAbilities(ex: Executor, channels: AbilitySource[]): Promise<void> {
  if (channels.length === 0) return;
  await deleteAbilities(
    ex,
    channels.map((c) => c.id),
  );
  await insertAbilities(ex, channels.flatMap(abilityRows));
}

/** Drops every ability and rebuilds them from all channels; returns the number of channels. */
export async function rebuildAllAbilities(ex: Executor, channels: AbilitySource[]): Promise<number> {
  await ex.deleteFrom('abilities').execute();
  await insertAbilities(ex, channels.flatMap(abilityRows));
  return channels.length;
}
