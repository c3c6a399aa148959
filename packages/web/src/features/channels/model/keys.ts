import { ChannelType, channelTypeById } from '@tollway/shared';
import type { TFunction } from 'i18next';

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

/** The key placeholder of a type: its key format when it has one, else a generic hint. */
export function keyPlaceholder(type: number, t: TFunction): string {
  if (type === ChannelType.VertexAi) return t('editor.keyPlaceholderVertex');
  const format = channelTypeById.get(type)?.keyFormat;
  if (format) return t('editor.keyPlaceholderFormat', { format });
  if (type === ChannelType.Azure) return t('editor.keyPlaceholderAzure');
  return t('editor.keyPlaceholder');
}

/** What `other` means for a type, or undefined when the type has no use for it. */
export type OtherKind = 'region' | 'sparkVersion' | 'azureVersion' | 'knowledgeId' | 'accountId';
export function otherKindOf(type: number): OtherKind | undefined {
  switch (type) {
    case ChannelType.VertexAi:
      return 'region';
    case ChannelType.Xunfei:
      return 'sparkVersion';
    case ChannelType.Azure:
      return 'azureVersion';
    case ChannelType.AIProxyLibrary:
      return 'knowledgeId';
    case ChannelType.Cloudflare:
      return 'accountId';
    default:
      return undefined;
  }
}

/** Task channel types (billed per task, polled to completion): which hint the editor shows. */
export type TaskKind = 'midjourney' | 'suno' | 'video';
const TASK_KINDS: Record<number, TaskKind> = {
  [ChannelType.Midjourney]: 'midjourney',
  [ChannelType.MidjourneyPlus]: 'midjourney',
  [ChannelType.SunoAPI]: 'suno',
  [ChannelType.Kling]: 'video',
  [ChannelType.Jimeng]: 'video',
  [ChannelType.Vidu]: 'video',
  [ChannelType.DoubaoVideo]: 'video',
  [ChannelType.Sora]: 'video',
};
export const taskKindOf = (type: number): TaskKind | undefined => TASK_KINDS[type];
