import { Flex, Tag, Tooltip } from 'antd';
import { splitList } from '../model/status';

const COLORS = ['blue', 'cyan', 'geekblue', 'green', 'magenta', 'orange', 'purple', 'gold', 'volcano'];

/** Stable colour per group name. */
export function groupColor(group: string): string {
  let h = 0;
  for (const ch of group) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return COLORS[h % COLORS.length]!;
}

/** The channel's groups (comma text) as tags. */
export function GroupTags({ groups }: { groups: string }) {
  const list = splitList(groups);
  return (
    <Flex wrap gap={4}>
      {list.map((g) => (
        // A name cut to the column's width shows whole on hover.
        <Tooltip key={g} title={g}>
          <Tag color={groupColor(g)} className="tw-ch-group-tag">
            {g}
          </Tag>
        </Tooltip>
      ))}
    </Flex>
  );
}
