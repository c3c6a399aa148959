import { CopyOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { RecordActions } from '../../../components/RecordActions';
import { useCopy } from '../../../components/useCopy';
import { RedemptionStatus, type Redemption } from '../api';
import { TipButton } from '../../../components/TipButton';

interface Props {
  r: Redemption;
  onToggle: (r: Redemption) => Promise<void>;
  onEdit: (r: Redemption) => void;
  onDelete: (r: Redemption) => Promise<void>;
}

/**
 * Row actions: copy the code, enable/disable (not offered for a used code), edit (unused codes only, as the
 * server allows; otherwise disabled with the reason) and delete after a confirmation.
 */
export function RedemptionActions({ r, onToggle, onEdit, onDelete }: Props) {
  const { t } = useTranslation('redemption');
  const copy = useCopy();
  const enabled = r.status === RedemptionStatus.Unused;
  return (
    <RecordActions
      ns="redemption"
      testPrefix="redemption"
      id={r.id}
      name={r.name}
      enabled={enabled}
      locked={r.status === RedemptionStatus.Used}
      editable={enabled}
      editRefusal={t(r.status === RedemptionStatus.Used ? 'refused.editUsed' : 'refused.editDisabled')}
      lockedReason={t('refused.toggleUsed')}
      onToggle={() => onToggle(r)}
      onEdit={() => onEdit(r)}
      onDelete={() => onDelete(r)}
    >
      <TipButton
        label={t('actions.copy')}
        size="small"
        icon={<CopyOutlined />}
        data-testid={`redemption-copy-${r.id}`}
        onClick={() => void copy(r.key, t('toast.copied'))}
      />
    </RecordActions>
  );
}
