import { App, Form, Input, Modal, Radio } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rowIssues, type CellField, type Mode, type RatioRow, type Unit } from './model';

interface Props {
  open: boolean;
  unit: Unit;
  /** Names already in the table (including unsaved ones). */
  exists: (name: string) => boolean;
  onCancel: () => void;
  onAdd: (row: RatioRow) => void;
}

const EMPTY = { name: '', input: '', output: '', cache: '', price: '' };

/** Adds a model row (unsaved until the editor is saved): a unique name, then its ratios/prices or a fixed price. */
export function AddModelModal({ open, unit, exists, onCancel, onAdd }: Props) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const [mode, setMode] = useState<Mode>('token');
  const [v, setV] = useState(EMPTY);
  const [bad, setBad] = useState<(CellField | 'name')[]>([]);

  useEffect(() => {
    if (!open) return;
    setMode('token');
    setV(EMPTY);
    setBad([]);
  }, [open]);

  const submit = () => {
    const name = v.name.trim();
    if (!name) {
      setBad(['name']);
      return void message.error(t('ratio.nameRequired'));
    }
    if (exists(name)) {
      setBad(['name']);
      return void message.error(t('ratio.nameExists'));
    }
    if (mode === 'token' && !v.input.trim()) {
      setBad(['input']);
      return void message.error(t('ratio.issue.inputRequired'));
    }
    const row: RatioRow = {
      name,
      mode,
      input: v.input,
      output: v.output,
      cache: v.cache,
      price: v.price,
      dirty: true,
      isNew: true,
    };
    const issues = rowIssues(row, unit);
    const fields = Object.keys(issues) as CellField[];
    if (fields.length > 0) {
      setBad(fields);
      const first = issues[fields[0]!]!;
      return void message.error(first === 'number' ? t('validation.number') : t(`ratio.issue.${first}`));
    }
    onAdd(row);
  };

  const cell = (f: CellField, label: string, prefix?: string) => (
    <Form.Item label={label} validateStatus={bad.includes(f) ? 'error' : undefined} style={{ marginBottom: 12 }}>
      <Input
        value={v[f]}
        inputMode="decimal"
        prefix={prefix}
        onChange={(e) => {
          setV((s) => ({ ...s, [f]: e.target.value }));
          setBad((b) => b.filter((x) => x !== f));
        }}
        onPressEnter={submit}
        data-testid={`ratio-add-${f}`}
      />
    </Form.Item>
  );
  const money = unit === 'price' ? '$' : undefined;

  return (
    <Modal
      open={open}
      title={t('ratio.addTitle')}
      onCancel={onCancel}
      onOk={submit}
      okText={t('common:action.add')}
      cancelText={t('common:action.cancel')}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'ratio-add-ok' }}
    >
      <Form layout="vertical" requiredMark={false} style={{ marginTop: 12 }}>
        <Form.Item
          label={t('ratio.col.model')}
          validateStatus={bad.includes('name') ? 'error' : undefined}
          style={{ marginBottom: 12 }}
        >
          <Input
            autoFocus
            value={v.name}
            placeholder="gpt-4o"
            onChange={(e) => {
              setV((s) => ({ ...s, name: e.target.value }));
              setBad((b) => b.filter((x) => x !== 'name'));
            }}
            onPressEnter={submit}
            data-testid="ratio-add-name"
          />
        </Form.Item>
        <Form.Item label={t('ratio.col.mode')} style={{ marginBottom: 12 }}>
          <Radio.Group
            optionType="button"
            buttonStyle="solid"
            value={mode}
            onChange={(e) => setMode(e.target.value as Mode)}
            options={[
              { value: 'token', label: t('ratio.mode.token') },
              { value: 'request', label: t('ratio.mode.request') },
            ]}
            data-testid="ratio-add-mode"
          />
        </Form.Item>
        {mode === 'token' ? (
          <>
            {cell('input', t(`ratio.col.${unit}.input`), money)}
            {cell('output', t(`ratio.col.${unit}.output`), money)}
            {cell('cache', t(`ratio.col.${unit}.cache`), money)}
          </>
        ) : (
          cell('price', t('ratio.col.fixed'), '$')
        )}
      </Form>
    </Modal>
  );
}
