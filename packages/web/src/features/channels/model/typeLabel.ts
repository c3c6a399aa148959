import { channelTypeById } from '@tollway/shared';
import type { TFunction } from 'i18next';

/** A channel type's name in the console's language (the shared label when no translation exists, `#id` when unknown). */
export function channelTypeLabel(t: TFunction, id: number): string {
  const fallback = channelTypeById.get(id)?.label ?? `#${id}`;
  return t(`channels:typeName.${id}`, { defaultValue: fallback });
}
