import { channelTypeById } from '@tollway/shared';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

/** Tag colours of the task platforms; new-api stores a video task's platform by name or by channel type id. */
const COLORS: Record<string, string> = {
  suno: 'green',
  kling: 'blue',
  jimeng: 'cyan',
  vidu: 'purple',
  sora: 'geekblue',
  doubao: 'volcano',
  openai: 'geekblue',
};

/**
 * A task's platform in the console's language: by name, or for a channel type id by its type's platform name (its
 * label when the platform has no name here); else the raw value.
 */
export function PlatformTag({ platform }: { platform: string }) {
  const { t } = useTranslation('tasks');
  const p = platform.toLowerCase();
  const byType = /^\d+$/.test(p) ? channelTypeById.get(Number(p)) : undefined;
  const name = byType ? byType.label.toLowerCase().split(' ')[0]! : p;
  return (
    <Tag color={COLORS[name] ?? 'default'} data-testid="task-platform">
      {t(`platform.${name}`, { defaultValue: byType ? byType.label : platform || '—' })}
    </Tag>
  );
}
