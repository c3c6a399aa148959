import { Form } from 'antd';
import type { FormEventHandler, ReactNode } from 'react';

/**
 * A react-hook-form form laid out as a vertical antd form without required marks. The fields stand inside a
 * real <form>, so Enter submits and the browser offers to save a password.
 */
export function FieldsForm({
  onSubmit,
  testid,
  children,
}: {
  onSubmit: FormEventHandler<HTMLFormElement>;
  testid?: string;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate data-testid={testid}>
      <Form component="div" layout="vertical" requiredMark={false}>
        {children}
      </Form>
    </form>
  );
}
