import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { useForm, type DefaultValues, type FieldValues, type Resolver, type UseFormReturn } from 'react-hook-form';
import { useSubmit } from './useSubmit';

interface Options<R, F extends FieldValues> {
  /** undefined: closed; null: create; a number: edit that record. */
  target: number | null | undefined;
  /** Query key prefix of the record being edited (followed by its id). */
  queryKey: string;
  fetch: (id: number) => Promise<R>;
  /** The form's resolver; creating and editing may validate differently. Pass a module-level function. */
  resolver: (creating: boolean) => Resolver<F>;
  /** Blank form values, or the values of a loaded record. Pass a module-level function. */
  defaults: (record?: R) => F;
  create: (values: F) => Promise<void>;
  update: (values: F, id: number) => Promise<void>;
}

/** The texts of an editor drawer. */
export interface EditorTexts {
  addTitle: string;
  editTitle: string;
  loadFailed: string;
}

/** A record editor's form and what its EditorDrawer shows. */
export interface RecordEditor<R, F extends FieldValues> {
  creating: boolean;
  /** The record being edited, once loaded. */
  record: R | undefined;
  form: UseFormReturn<F>;
  submit: () => void;
  drawerProps: (texts: EditorTexts) => {
    open: boolean;
    title: string;
    saving: boolean;
    loading: boolean;
    failed: string | undefined;
    onSubmit: () => void;
  };
}

/**
 * The state of a create/edit form of one record in an EditorDrawer: loads the record being edited, resets the
 * form to blank on create and to the record once loaded, and saves through `create` or `update` (a failed call
 * was already toasted by the API client). `drawerProps` are the EditorDrawer's open, title, loading and submit.
 */
export function useRecordEditor<R, F extends FieldValues>({
  target,
  queryKey,
  fetch,
  resolver: makeResolver,
  defaults,
  create,
  update,
}: Options<R, F>): RecordEditor<R, F> {
  const open = target !== undefined;
  const creating = target === null;
  const editId = typeof target === 'number' ? target : null;
  const { loading: saving, run } = useSubmit();

  const record = useQuery({
    queryKey: [queryKey, editId],
    queryFn: () => fetch(editId!),
    enabled: editId !== null,
    gcTime: 0,
  });
  const resolver = useMemo(() => makeResolver(creating), [makeResolver, creating]);
  const form = useForm<F>({ resolver, defaultValues: defaults() as DefaultValues<F> });
  const { handleSubmit, reset } = form;

  useEffect(() => {
    if (creating) reset(defaults());
  }, [creating, reset, defaults]);
  useEffect(() => {
    if (editId !== null && record.data) reset(defaults(record.data));
  }, [editId, record.data, reset, defaults]);

  const submit = () =>
    void handleSubmit((values) =>
      run(async () => {
        if (creating) await create(values);
        else if (editId !== null) await update(values, editId);
      }),
    )();

  const drawerProps = (texts: EditorTexts) => ({
    open,
    title: creating ? texts.addTitle : texts.editTitle,
    saving,
    loading: editId !== null && record.isPending,
    failed: record.isError ? texts.loadFailed : undefined,
    onSubmit: submit,
  });

  return { creating, record: record.data, form, submit, drawerProps };
}
