import { CopyOutlined, DownOutlined } from '@ant-design/icons';
import { TokenStatus } from '@tollway/shared';
import { Button, Dropdown, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { RecordActions } from '../../../components/RecordActions';
import { useCopy } from '../../../components/useCopy';
import { attempt } from '../../../lib/attempt';
import { revealKey, type Token } from '../api';
import { curlSnippet, envSnippet } from '../snippets';

interface Props {
  token: Token;
  onToggle: (token: Token) => Promise<void>;
  onEdit: (token: Token) => void;
  onDelete: (token: Token) => Promise<void>;
}

/**
 * Row actions: copy the key (or a base URL + key snippet), enable/disable, edit, delete with a
 * confirmation. Status 1 offers disable; any other status offers enable, which the server refuses for expired or
 * exhausted tokens (its message is toasted by the API client).
 */
export function TokenActions({ token, onToggle, onEdit, onDelete }: Props) {
  const { t } = useTranslation('tokens');
  const copy = useCopy();
  // Lists carry masked keys: every copy asks the server for the full key first.
  const copyAs = (format: string) =>
    attempt(async () => {
      const key = await revealKey(token.id);
      if (format === 'env') await copy(envSnippet(key), t('toast.snippetCopied'));
      else if (format === 'curl') await copy(curlSnippet(token, key), t('toast.snippetCopied'));
      else await copy(key, t('toast.keyCopied'));
    });
  return (
    <RecordActions
      ns="tokens"
      testPrefix="token"
      id={token.id}
      name={token.name}
      enabled={token.status === TokenStatus.Enabled}
      onToggle={() => onToggle(token)}
      onEdit={() => onEdit(token)}
      onDelete={() => onDelete(token)}
    >
      <Space.Compact size="small">
        <Button
          size="small"
          icon={<CopyOutlined />}
          data-testid={`token-copy-${token.id}`}
          aria-label={t('actions.copyKey')}
          onClick={() => void copyAs('key')}
        />
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              { key: 'key', label: t('actions.copyKey') },
              { key: 'env', label: t('actions.copyEnv') },
              { key: 'curl', label: t('actions.copyCurl') },
            ],
            onClick: ({ key }) => void copyAs(key),
          }}
        >
          <Button
            size="small"
            icon={<DownOutlined />}
            aria-label={t('actions.copyMore')}
            data-testid={`token-copy-more-${token.id}`}
          />
        </Dropdown>
      </Space.Compact>
    </RecordActions>
  );
}
