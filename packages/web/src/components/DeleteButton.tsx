import { DeleteOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Tooltip, type ButtonProps } from 'antd';
import { useTranslation } from 'react-i18next';

interface Props {
  /** Tooltip, aria label and confirm button text. */
  label: string;
  confirmTitle: string;
  confirmText: string;
  loading: boolean;
  disabled: boolean;
  onConfirm: () => Promise<void>;
  testid: string;
  confirmTestid: string;
}

/** A small red delete icon of a table row that asks for confirmation first. */
export function DeleteButton({
  label,
  confirmTitle,
  confirmText,
  loading,
  disabled,
  onConfirm,
  testid,
  confirmTestid,
}: Props) {
  const { t } = useTranslation();
  return (
    <Popconfirm
      title={confirmTitle}
      description={confirmText}
      okText={label}
      okButtonProps={{ danger: true, 'data-testid': confirmTestid } as ButtonProps}
      cancelText={t('common:action.cancel')}
      onConfirm={onConfirm}
    >
      <Tooltip title={label}>
        <Button
          size="small"
          type="text"
          danger
          icon={<DeleteOutlined />}
          aria-label={label}
          loading={loading}
          disabled={disabled}
          data-testid={testid}
        />
      </Tooltip>
    </Popconfirm>
  );
}
