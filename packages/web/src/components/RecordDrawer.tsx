import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Control, FieldValues, Path } from 'react-hook-form';
import { EditorDrawer } from './EditorDrawer';
import { EditorForm, FormSection } from './EditorForm';
import type { RecordEditor } from '../lib/useRecordEditor';
import { TextField } from './TextField';

interface Props<R, F extends FieldValues & { name: string }> {
  /** The feature's i18n namespace: drawer.addTitle/editTitle/loadFailed/basic, field.name and placeholder.name. */
  ns: string;
  editor: RecordEditor<R, F>;
  width: number;
  /** Test ids are `${testPrefix}-drawer`, `-form-submit` and `-form-name`. */
  testPrefix: string;
  nameMax: number;
  onClose: () => void;
  /** The fields after the name. */
  children: ReactNode;
}

/** The editor drawer of a named record: its form opens with a "basics" section and the required name. */
export function RecordDrawer<R, F extends FieldValues & { name: string }>({
  ns,
  editor,
  width,
  testPrefix,
  nameMax,
  onClose,
  children,
}: Props<R, F>) {
  const { t } = useTranslation(ns);
  return (
    <EditorDrawer
      {...editor.drawerProps({
        addTitle: t('drawer.addTitle'),
        editTitle: t('drawer.editTitle'),
        loadFailed: t('drawer.loadFailed'),
      })}
      onClose={onClose}
      width={width}
      testid={`${testPrefix}-drawer`}
      submitTestid={`${testPrefix}-form-submit`}
    >
      <EditorForm onSubmit={editor.submit}>
        <FormSection first title={t('drawer.basic')} />
        <TextField
          control={editor.form.control as Control<F>}
          name={'name' as Path<F>}
          label={t('field.name')}
          required
          data-testid={`${testPrefix}-form-name`}
          placeholder={t('placeholder.name')}
          maxLength={nameMax}
          showCount
          autoFocus
        />
        {children}
      </EditorForm>
    </EditorDrawer>
  );
}
