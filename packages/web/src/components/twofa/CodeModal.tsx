import { Input, Modal, Typography, type ButtonProps } from 'antd';
import { useEffect, useState } from 'react';
import { useSubmit } from '../../lib/useSubmit';

interface Props {
  open: boolean;
  title: string;
  hint: string;
  placeholder: string;
  okText: string;
  danger?: boolean;
  testId: string;
  onClose: () => void;
  /** Called with the trimmed code; a failed call keeps the dialog open (the API client showed the message). */
  onSubmit: (code: string) => Promise<void>;
}

/** Asks for one verification code (or backup code) and runs an action with it. */
export function CodeModal({ open, title, hint, placeholder, okText, danger, testId, onClose, onSubmit }: Props) {
  const [code, setCode] = useState('');
  const { loading, run } = useSubmit();
  useEffect(() => {
    if (open) setCode('');
  }, [open]);
  const submit = () => void run(() => onSubmit(code.trim()));
  return (
    <Modal
      open={open}
      title={title}
      okText={okText}
      okButtonProps={{ danger, disabled: !code.trim(), loading, 'data-testid': `${testId}-ok` } as ButtonProps}
      onOk={submit}
      onCancel={onClose}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{hint}</Typography.Paragraph>
      <Input
        value={code}
        onChange={(e) => setCode(e.target.value)}
        onPressEnter={submit}
        placeholder={placeholder}
        autoComplete="one-time-code"
        autoFocus
        data-testid={`${testId}-code`}
      />
    </Modal>
  );
}
