import { KeyOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../lib/api';
import { useCopy } from '../../components/useCopy';
import { SettingRow } from './SettingRow';
import { useSubmit } from '../../lib/useSubmit';

/** GET /api/user/token resets the system access token; it is shown and copied (manual-copy dialog on failure). */
export function AccessTokenRow() {
  const { t } = useTranslation('me');
  const copy = useCopy();
  const [token, setToken] = useState<string | null>(null);
  const { loading, run } = useSubmit();

  const generate = async () => {
    await run(async () => {
      const value = await apiGet<string>('/api/user/token');
      const text = String(value ?? '');
      setToken(text);
      await copy(text, t('security.tokenCopied'));
    });
  };

  return (
    <SettingRow
      icon={<KeyOutlined />}
      title={t('security.token')}
      desc={t('security.tokenDesc')}
      action={
        <Popconfirm title={t('security.regenerateConfirm')} onConfirm={() => void generate()} disabled={token === null}>
          <Button
            loading={loading}
            onClick={token === null ? () => void generate() : undefined}
            data-testid="me-generate-token"
          >
            {t('security.generate')}
          </Button>
        </Popconfirm>
      }
    >
      {token && (
        <Typography.Paragraph
          copyable={{ text: token }}
          code
          style={{ margin: '8px 0 0', wordBreak: 'break-all' }}
          data-testid="me-access-token"
        >
          {token}
        </Typography.Paragraph>
      )}
    </SettingRow>
  );
}
