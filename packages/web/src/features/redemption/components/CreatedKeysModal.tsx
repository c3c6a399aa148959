import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { Button, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCopy } from '../../../components/useCopy';
import { downloadKeys } from '../api';

interface Props {
  created: { keys: string[]; name: string } | null;
  onClose: () => void;
}

/** After a create: the new codes, already downloaded as a text file, to copy or download again. */
export function CreatedKeysModal({ created, onClose }: Props) {
  const { t } = useTranslation('redemption');
  const copy = useCopy();
  const keys = created?.keys ?? [];
  return (
    <Modal
      open={created !== null}
      onCancel={onClose}
      title={t('created.title')}
      data-testid="redemptions-created-modal"
      footer={[
        <Button
          key="dl"
          icon={<DownloadOutlined />}
          onClick={() => downloadKeys(keys, created!.name)}
          data-testid="redemptions-created-download"
        >
          {t('created.download')}
        </Button>,
        <Button
          key="copy"
          type="primary"
          icon={<CopyOutlined />}
          onClick={() => void copy(keys.join('\n'), t('toast.batchCopied', { count: keys.length }))}
        >
          {t('created.copyAll')}
        </Button>,
      ]}
    >
      <Typography.Paragraph type="secondary">{t('created.hint', { count: keys.length })}</Typography.Paragraph>
      <Input.TextArea
        className="tw-red-keys"
        readOnly
        value={keys.join('\n')}
        autoSize={{ minRows: 2, maxRows: 10 }}
        data-testid="redemptions-created-keys"
      />
    </Modal>
  );
}
