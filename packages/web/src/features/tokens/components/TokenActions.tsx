import { CopyOutlined, DownOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Dropdown, Flex, Space, Switch, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { DeleteButton } from '../../../components/DeleteButton';
import { useBusy } from '../../../lib/useBusy';
import { useCopy } from '../../../components/useCopy';
import { fullKey, TokenStatus, type Token } from '../api';
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
  const [busy, run] = useBusy<'toggle' | 'delete'>();
  const enabled = token.status === TokenStatus.Enabled;

  return (
    <Flex gap={2} align="center">
      <Space.Compact size="small">
        <Button
          size="small"
          icon={<CopyOutlined />}
          data-testid={`token-copy-${token.id}`}
          aria-label={t('actions.copyKey')}
          onClick={() => void copy(fullKey(token), t('toast.keyCopied'))}
        />
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              { key: 'key', label: t('actions.copyKey') },
              { key: 'env', label: t('actions.copyEnv') },
              { key: 'curl', label: t('actions.copyCurl') },
            ],
            onClick: ({ key }) => {
              if (key === 'key') void copy(fullKey(token), t('toast.keyCopied'));
              else if (key === 'env') void copy(envSnippet(token), t('toast.snippetCopied'));
              else void copy(curlSnippet(token), t('toast.snippetCopied'));
            },
          }}
        >
          <Button size="small" icon={<DownOutlined />} aria-label={t('actions.copyMore')} data-testid={`token-copy-more-${token.id}`} />
        </Dropdown>
      </Space.Compact>
      <Tooltip title={enabled ? t('actions.disable') : t('actions.enable')}>
        <Switch
          size="small"
          checked={enabled}
          loading={busy === 'toggle'}
          disabled={busy === 'delete'}
          aria-label={enabled ? t('actions.disable') : t('actions.enable')}
          data-testid={`token-toggle-${token.id}`}
          onChange={() => void run('toggle', () => onToggle(token))}
          style={{ marginInline: 6 }}
        />
      </Tooltip>
      <Tooltip title={t('actions.edit')}>
        <Button size="small" type="text" icon={<EditOutlined />} aria-label={t('actions.edit')} data-testid={`token-edit-${token.id}`} onClick={() => onEdit(token)} />
      </Tooltip>
      <DeleteButton
        label={t('actions.delete')}
        confirmTitle={t('actions.deleteTitle')}
        confirmText={t('actions.deleteConfirm', { name: token.name })}
        loading={busy === 'delete'}
        disabled={busy === 'toggle'}
        onConfirm={() => run('delete', () => onDelete(token))}
        testid={`token-delete-${token.id}`}
        confirmTestid={`token-delete-confirm-${token.id}`}
      />
    </Flex>
  );
}
