import { Alert, Button, Drawer, Flex, Skeleton } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../lib/useIsMobile';

interface Props {
  open: boolean;
  title: ReactNode;
  /** Desktop width; full width on mobile. */
  width: number;
  onClose: () => void;
  onSubmit: () => void;
  saving: boolean;
  /** The record being edited is still loading. */
  loading: boolean;
  /** Loading the record failed: this text replaces the form and submit is off. */
  failed?: string;
  testid: string;
  submitTestid: string;
  children: ReactNode;
}

/** A create/edit form in a side drawer with cancel and submit in the footer. */
export function EditorDrawer({
  open,
  title,
  width,
  onClose,
  onSubmit,
  saving,
  loading,
  failed,
  testid,
  submitTestid,
  children,
}: Props) {
  const { t } = useTranslation();
  const mobile = useIsMobile();
  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={title}
      size={mobile ? '100%' : width}
      destroyOnHidden
      data-testid={testid}
      footer={
        <Flex justify="flex-end" gap={8}>
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button
            type="primary"
            loading={saving}
            disabled={loading || failed !== undefined}
            onClick={onSubmit}
            data-testid={submitTestid}
          >
            {t('common:action.submit')}
          </Button>
        </Flex>
      }
    >
      {failed !== undefined ? (
        <Alert type="error" showIcon title={failed} />
      ) : loading ? (
        <Skeleton active paragraph={{ rows: 8 }} />
      ) : (
        children
      )}
    </Drawer>
  );
}
