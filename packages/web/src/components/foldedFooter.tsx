import { Typography } from 'antd';
import type { TFunction } from 'i18next';

/**
 * The table footer naming the columns left out to fit the window (see lib/useFittedColumns), or none when every
 * column shows. `t` is the feature's: it has `foldedHint`, `listSeparator` and `col.<key>`.
 */
export function foldedFooter(folded: readonly string[], t: TFunction, testId: string) {
  if (!folded.length) return undefined;
  return () => (
    <Typography.Text type="secondary" data-testid={testId} data-keys={folded.join(',')}>
      {t('foldedHint', { list: folded.map((k) => t(`col.${k}`)).join(t('listSeparator')) })}
    </Typography.Text>
  );
}
