import { renderQuota, type OptionKey } from '@tollway/shared';
import { Col, Flex, Form, Input, InputNumber, Select, Switch, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Controller, useFormContext, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status';
import { canEditOption } from '../model/access';
import { defOf, fieldName, labelKey, type FormValue } from '../model/options';

export type FieldType = 'input' | 'password' | 'textarea' | 'code' | 'json' | 'number' | 'switch' | 'select';
export type Span = 'full' | 'half' | 'third';

export interface OptionFieldProps {
  k: OptionKey;
  label?: ReactNode;
  /** Help below the field; by default the `help.<Key>` string when there is one. */
  help?: ReactNode;
  type?: FieldType;
  span?: Span;
  placeholder?: string;
  step?: number;
  min?: number;
  max?: number;
  suffix?: ReactNode;
  prefix?: ReactNode;
  /** Show the currency equivalent of a quota amount under the field. */
  quota?: boolean;
  disabled?: boolean;
  /** For switches: intercept a toggle (e.g. to confirm); call apply() to accept it. */
  onToggle?: (next: boolean, apply: () => void) => void;
}

function defaultType(k: OptionKey): FieldType {
  const def = defOf(k);
  if (def.kind === 'bool') return 'switch';
  if (def.kind === 'int' || def.kind === 'float') return 'number';
  if (def.kind === 'enum') return 'select';
  if (def.kind === 'json') return 'json';
  return def.secret ? 'password' : 'input';
}

const COLS: Record<Span, { xs: number; md: number; xl: number }> = {
  full: { xs: 24, md: 24, xl: 24 },
  half: { xs: 24, md: 12, xl: 12 },
  third: { xs: 24, md: 12, xl: 8 },
};

const MONO = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 13 };

function QuotaHint({ name }: { name: string }) {
  const { t } = useTranslation('settings');
  const { data: status } = useStatus();
  const value = useWatch({ name }) as FormValue;
  if (typeof value !== 'number') return null;
  return (
    <>
      {t('quotaEquals', {
        value: renderQuota(value, { displayInCurrency: true, quotaPerUnit: status?.quota_per_unit }),
      })}
    </>
  );
}

/** One option input, chosen from the option's kind in optionDefs, bound to the section form by name. */
export function OptionField(props: OptionFieldProps) {
  const { k, type = defaultType(k), disabled } = props;
  const { t } = useTranslation('settings');
  const { control } = useFormContext();
  if (!canEditOption(k)) return null;
  const def = defOf(k);
  const lk = labelKey(k);
  const name = fieldName(k);
  const label = props.label ?? t(`field.${lk}`);
  const helpText = props.help ?? (t(`help.${lk}`, { defaultValue: '' }) || undefined);
  const span =
    props.span ?? (type === 'switch' ? 'third' : ['textarea', 'code', 'json'].includes(type) ? 'full' : 'half');
  const testId = `option-${k}`;

  return (
    <Col {...COLS[span]}>
      <Controller
        control={control}
        name={name}
        render={({ field, fieldState }) => {
          const status = fieldState.error ? ('error' as const) : undefined;
          const extra =
            !helpText && !props.quota ? undefined : (
              <>
                {helpText}
                {props.quota ? (
                  <div>
                    <QuotaHint name={name} />
                  </div>
                ) : null}
              </>
            );
          if (type === 'switch') {
            const apply = (next: boolean) => field.onChange(next);
            return (
              <Form.Item extra={helpText} style={{ marginBottom: 16 }}>
                <Flex align="center" gap={10}>
                  <Switch
                    id={`opt-${name}`}
                    data-testid={testId}
                    checked={field.value === true}
                    disabled={disabled}
                    onChange={(next) => (props.onToggle ? props.onToggle(next, () => apply(next)) : apply(next))}
                  />
                  <label htmlFor={`opt-${name}`} style={{ cursor: 'pointer' }}>
                    <Typography.Text>{label}</Typography.Text>
                  </label>
                </Flex>
              </Form.Item>
            );
          }
          let input: ReactNode;
          const common = {
            id: `opt-${name}`,
            'data-testid': testId,
            disabled,
            onBlur: field.onBlur,
            placeholder: props.placeholder,
          };
          if (type === 'number') {
            input = (
              <InputNumber
                {...common}
                value={typeof field.value === 'number' ? field.value : null}
                onChange={(v) => field.onChange(typeof v === 'number' ? v : null)}
                min={props.min ?? def.min}
                max={props.max ?? def.max}
                step={props.step ?? 1}
                precision={def.kind === 'int' ? 0 : undefined}
                prefix={props.prefix}
                suffix={props.suffix}
                style={{ width: '100%' }}
              />
            );
          } else if (type === 'select') {
            const values = def.values ?? [];
            input = (
              <Select
                {...common}
                value={field.value as string}
                onChange={(v) => field.onChange(v)}
                options={values.map((v) => ({
                  value: v,
                  label: t(`enum.${lk}.${v || '_empty'}`, { defaultValue: v }),
                }))}
              />
            );
          } else if (type === 'textarea' || type === 'code' || type === 'json') {
            input = (
              <Input.TextArea
                {...common}
                value={(field.value as string) ?? ''}
                onChange={(e) => field.onChange(e.target.value)}
                autoSize={{ minRows: type === 'textarea' ? 3 : 5, maxRows: 18 }}
                spellCheck={type === 'textarea'}
                style={type === 'textarea' ? undefined : MONO}
              />
            );
          } else {
            const Comp = type === 'password' ? Input.Password : Input;
            input = (
              <Comp
                {...common}
                value={(field.value as string) ?? ''}
                onChange={(e) => field.onChange(e.target.value)}
                placeholder={props.placeholder ?? (def.secret ? t('secretPlaceholder') : undefined)}
                autoComplete={type === 'password' ? 'new-password' : 'off'}
                prefix={props.prefix}
                suffix={props.suffix}
              />
            );
          }
          return (
            <Form.Item
              label={label}
              htmlFor={`opt-${name}`}
              validateStatus={status}
              help={fieldState.error?.message}
              extra={extra}
            >
              {input}
            </Form.Item>
          );
        }}
      />
    </Col>
  );
}
