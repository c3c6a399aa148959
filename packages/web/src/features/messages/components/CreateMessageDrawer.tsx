import { zodResolver } from '@hookform/resolvers/zod';
import { App, Form } from 'antd';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useSubmit } from '../../../lib/useSubmit';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { FormField } from '../../../components/FormField';
import { createMessage } from '../api';
import { createMessageSchema, EMPTY_MESSAGE, type MessageForm } from '../schema';
import { MessageFields } from './MessageFields';
import { RecipientPicker } from './RecipientPicker';

/** Create drawer: title, format, content and at least one recipient → POST /api/admin/messages. */
export function CreateMessageDrawer({
  open,
  onClose,
  onSaved,
}: {
  open: boolean;
  onClose: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation('messages');
  const { message } = App.useApp();
  const { loading, run } = useSubmit();
  const { control, handleSubmit, reset } = useForm<MessageForm>({
    resolver: zodResolver(createMessageSchema),
    defaultValues: EMPTY_MESSAGE,
  });
  const close = () => {
    reset(EMPTY_MESSAGE);
    onClose();
  };
  const submit = handleSubmit((values) =>
    run(async () => {
      await createMessage({ ...values, title: values.title.trim(), content: values.content.trim() });
      void message.success(t('toast.created'));
      reset(EMPTY_MESSAGE);
      onSaved();
    }),
  );
  return (
    <EditorDrawer
      open={open}
      onClose={close}
      title={t('drawer.create')}
      width={640}
      saving={loading}
      loading={false}
      onSubmit={() => void submit()}
      testid="message-create-drawer"
      submitTestid="message-submit"
    >
      <Form layout="vertical" onFinish={() => void submit()}>
        <MessageFields control={control} />
        <FormField
          control={control}
          name="user_ids"
          label={t('field.recipients')}
          required
          render={(f) => <RecipientPicker value={f.value} onChange={f.onChange} />}
        />
      </Form>
    </EditorDrawer>
  );
}
