import { Button, Flex, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatJson, pretty } from '../model/json';

interface Props {
  value: string;
  onChange: (v: string) => void;
  onBlur?: () => void;
  placeholder?: string;
  /** Offered by a "fill template" button. */
  template?: unknown;
  testId?: string;
  minRows?: number;
  status?: 'error';
}

/** A JSON text field with "fill template" and "format" helpers. */
export function JsonTextArea({ value, onChange, onBlur, placeholder, template, testId, minRows = 3, status }: Props) {
  const { t } = useTranslation('channels');
  return (
    <div className="tw-ch-json">
      <Input.TextArea
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onBlur={onBlur}
        placeholder={placeholder ?? (template !== undefined ? pretty(template) : undefined)}
        autoSize={{ minRows, maxRows: 14 }}
        spellCheck={false}
        status={status}
        className="tw-ch-mono"
        data-testid={testId}
      />
      <Flex gap={4} className="tw-ch-json-tools">
        {template !== undefined ? (
          <Button size="small" type="link" onClick={() => onChange(pretty(template))}>
            {t('editor.fillTemplate')}
          </Button>
        ) : null}
        <Button size="small" type="link" disabled={value.trim() === ''} onClick={() => onChange(formatJson(value))}>
          {t('editor.formatJson')}
        </Button>
      </Flex>
    </div>
  );
}
