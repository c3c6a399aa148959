import { Form } from 'antd';
import type { ReactElement, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Controller, type Control, type ControllerRenderProps, type FieldValues, type Path } from 'react-hook-form';

interface Props<T extends FieldValues, N extends Path<T>> {
  control: Control<T>;
  name: N;
  label?: ReactNode;
  extra?: ReactNode;
  required?: boolean;
  className?: string;
  render: (field: ControllerRenderProps<T, N>) => ReactElement;
}

/** A zod message that is an i18n key ("ns:key.path") rather than text already translated. */
const I18N_KEY = /^[\w-]+:[\w.-]+$/;

/**
 * A react-hook-form field laid out as an antd Form.Item. Zod messages that are i18n keys ("ns:key") are translated
 * here, so they follow language changes; other messages show as written.
 */
export function FormField<T extends FieldValues, N extends Path<T>>({
  control,
  name,
  label,
  extra,
  required,
  className,
  render,
}: Props<T, N>) {
  const { t } = useTranslation();
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <Form.Item
          label={label}
          required={required}
          extra={extra}
          className={className}
          validateStatus={fieldState.error ? 'error' : undefined}
          help={helpText(fieldState.error?.message, t)}
        >
          {render(field)}
        </Form.Item>
      )}
    />
  );
}

function helpText(message: string | undefined, t: (key: string) => string): string | undefined {
  if (!message) return undefined;
  return I18N_KEY.test(message) ? t(message) : message;
}
