import { Modal, type ButtonProps } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface Props {
  open: boolean;
  title: ReactNode;
  /** What the OK button says; Cancel is the common one. */
  okText: string;
  /** The OK button's test id. */
  okTestid: string;
  /** More for the OK button (danger, disabled). */
  okProps?: ButtonProps;
  loading: boolean;
  onOk: () => Promise<unknown>;
  onClose: () => void;
  /** Unmount the body when hidden, so it opens fresh. */
  destroyOnHidden?: boolean;
  children: ReactNode;
}

/** A dialog that runs one action from its OK button (spinning while it runs) and closes on Cancel. */
export function ActionModal({
  open,
  title,
  okText,
  okTestid,
  okProps,
  loading,
  onOk,
  onClose,
  destroyOnHidden,
  children,
}: Props) {
  const { t } = useTranslation('common');
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      onOk={() => void onOk()}
      okText={okText}
      cancelText={t('action.cancel')}
      confirmLoading={loading}
      okButtonProps={{ ...okProps, 'data-testid': okTestid } as ButtonProps}
      destroyOnHidden={destroyOnHidden}
    >
      {children}
    </Modal>
  );
}
