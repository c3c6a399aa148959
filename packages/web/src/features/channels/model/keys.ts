import { channelTypeById } from '@tollway/shared';
import type { TFunction } from 'i18next';

/** Vertex AI: the key is service-account JSON, `other` a region; never multi-key (spec 2 §9). */
export const TYPE_VERTEX = 41;
/** iFlytek Spark: `other` is the API version, v2.1 when empty. */
export const TYPE_SPARK = 18;

/** Keys of a multi-key text: one per line, commas also separate; blanks dropped. */
export function splitKeys(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((k) => k.trim())
    .filter(Boolean);
}

/** A key text holding several keys (a comma or a newline inside). */
export const looksMultiKey = (text: string) => /[,\n]/.test(text.trim());

/** A key shortened for display: its start and end only. */
export function maskKey(key: string): string {
  if (key.length <= 12) return `${key.slice(0, 3)}…`;
  return `${key.slice(0, 6)}…${key.slice(-4)}`;
}

/** The key placeholder of a type: its key format when it has one (spec 2 §9), else a generic hint. */
export function keyPlaceholder(type: number, t: TFunction): string {
  if (type === TYPE_VERTEX) return t('editor.keyPlaceholderVertex');
  const format = channelTypeById.get(type)?.keyFormat;
  if (format) return t('editor.keyPlaceholderFormat', { format });
  if (type === 3) return t('editor.keyPlaceholderAzure');
  return t('editor.keyPlaceholder');
}

/** What `other` means for a type, or undefined when the type has no use for it. */
export type OtherKind = 'region' | 'sparkVersion' | 'azureVersion' | 'knowledgeId' | 'accountId';
export function otherKindOf(type: number): OtherKind | undefined {
  switch (type) {
    case TYPE_VERTEX:
      return 'region';
    case TYPE_SPARK:
      return 'sparkVersion';
    case 3:
      return 'azureVersion';
    case 21:
      return 'knowledgeId';
    case 39:
      return 'accountId';
    default:
      return undefined;
  }
}
