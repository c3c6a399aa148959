import { EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import { Button, Flex, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { attempt } from '../../../lib/attempt';
import { revealKey, withPrefix, type Token } from '../api';

/** The token's key as the list gives it (masked), and an eye that asks the server for the full key. */
export function TokenKeyCell({ token }: { token: Token }) {
  const { t } = useTranslation('tokens');
  const [full, setFull] = useState<string | undefined>(undefined);
  const toggle = () =>
    attempt(async () => {
      setFull(full === undefined ? await revealKey(token.id) : undefined);
    });
  return (
    <Flex align="center" gap={2} style={{ minWidth: 0, maxWidth: '100%' }}>
      <Typography.Text
        type="secondary"
        className="tw-tok-key"
        ellipsis={{ tooltip: full ?? withPrefix(token.key) }}
        data-testid={`token-key-${token.id}`}
      >
        {full ?? withPrefix(token.key)}
      </Typography.Text>
      <Button
        type="text"
        size="small"
        icon={full === undefined ? <EyeOutlined /> : <EyeInvisibleOutlined />}
        aria-label={full === undefined ? t('actions.showKey') : t('actions.hideKey')}
        data-testid={`token-key-show-${token.id}`}
        onClick={() => void toggle()}
      />
    </Flex>
  );
}
