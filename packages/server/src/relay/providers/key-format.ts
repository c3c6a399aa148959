import { channelTypeById } from '@tollway/shared';

/**
 * A key against its type's key format (the row's hint, e.g. `APIKey|SecretKey`): `|` formats need every part
 * filled; with `-` the API key itself may contain dashes, so only at least as many parts are needed.
 */
export function checkKeyFormat(type: number, key: string): void {
  const format = channelTypeById.get(type)?.keyFormat;
  if (!format) return;
  const sep = format.includes('|') ? '|' : '-';
  const want = format.split(sep).length;
  const parts = key.split(sep);
  const ok =
    sep === '|'
      ? parts.length === want && parts.every((p) => p.trim() !== '')
      : parts.length >= want && parts.every((p) => p !== '');
  if (!ok) throw new Error(`channel type ${type} needs the key format ${format}`);
}
