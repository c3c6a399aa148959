import { Input, type InputProps } from 'antd';
import type { ReactNode } from 'react';
import type { Control, FieldValues, Path } from 'react-hook-form';
import { FormField } from './FormField';

type BoxProps = Omit<InputProps, 'name' | 'value' | 'onChange' | 'onBlur' | 'required'> & { 'data-testid'?: string };

interface Props<T extends FieldValues, N extends Path<T>> extends BoxProps {
  control: Control<T>;
  name: N;
  label?: ReactNode;
  extra?: ReactNode;
  required?: boolean;
  /** A password box (masked, with the show toggle). */
  password?: boolean;
}

/** A text or password box bound to a react-hook-form field, laid out as a FormField; other props go to the box. */
export function TextField<T extends FieldValues, N extends Path<T>>({
  control,
  name,
  label,
  extra,
  required,
  className,
  password,
  ...box
}: Props<T, N>) {
  const item = { control, name, label, extra, required, className };
  return (
    <FormField {...item} render={(f) => (password ? <Input.Password {...f} {...box} /> : <Input {...f} {...box} />)} />
  );
}
