import { Divider, Form } from 'antd';
import type { ReactNode } from 'react';

/** The vertical form of an editor drawer: required marks shown, Enter in a field submits. */
export function EditorForm({ onSubmit, children }: { onSubmit: () => void; children: ReactNode }) {
  return (
    <Form layout="vertical" onFinish={onSubmit} requiredMark>
      {children}
      <button type="submit" hidden />
    </Form>
  );
}

/** A titled part of an editor form; the first one sits flush with the top of the drawer. */
export function FormSection({ title, first }: { title: ReactNode; first?: boolean }) {
  return (
    <Divider titlePlacement="start" style={first ? { marginTop: 0 } : undefined}>
      {title}
    </Divider>
  );
}
