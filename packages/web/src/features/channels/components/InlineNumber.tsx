import { InputNumber } from 'antd';
import { useEffect, useState } from 'react';

interface Props {
  value: number;
  min: number;
  onCommit: (n: number) => Promise<unknown>;
  testId?: string;
  ariaLabel: string;
}

/** An integer edited in place: saved on Enter or blur when it changed, restored when left empty. */
export function InlineNumber({ value, min, onCommit, testId, ariaLabel }: Props) {
  const [draft, setDraft] = useState<number | null>(value);
  const [busy, setBusy] = useState(false);
  useEffect(() => setDraft(value), [value]);

  const commit = async () => {
    if (draft === null || !Number.isFinite(draft)) {
      setDraft(value);
      return;
    }
    const n = Math.max(min, Math.trunc(draft));
    if (n === value) {
      setDraft(value);
      return;
    }
    setBusy(true);
    try {
      await onCommit(n);
    } catch {
      setDraft(value);
    } finally {
      setBusy(false);
    }
  };

  return (
    <InputNumber
      size="small"
      value={draft}
      min={min}
      precision={0}
      disabled={busy}
      onChange={(v) => setDraft(typeof v === 'number' ? v : null)}
      onBlur={() => void commit()}
      onPressEnter={(e) => (e.target as HTMLInputElement).blur()}
      style={{ width: 70 }}
      aria-label={ariaLabel}
      data-testid={testId}
    />
  );
}
