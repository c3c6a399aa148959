import { Form } from 'antd';
import type { ReactNode } from 'react';
import { Controller, type Control, type ControllerRenderProps, type FieldPath, type FieldValues } from 'react-hook-form';

interface Props<T extends FieldValues, N extends FieldPath<T>> {
  control: Control<T>;
  name: N;
  label: ReactNode;
  required?: boolean;
  extra?: ReactNode;
  children: (field: ControllerRenderProps<T, N>) => ReactNode;
}

/** A react-hook-form field laid out as an antd form item, with the zod message as its help text. */
export function RhfField<T extends FieldValues, N extends FieldPath<T>>({ control, name, label, required, extra, children }: Props<T, N>) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <Form.Item
          label={label}
          required={required}
          extra={extra}
          validateStatus={fieldState.error ? 'error' : undefined}
          help={fieldState.error?.message}
        >
          {children(field)}
        </Form.Item>
      )}
    />
  );
}
