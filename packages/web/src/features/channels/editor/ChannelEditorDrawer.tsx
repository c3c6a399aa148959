import { ChannelType } from '@tollway/shared';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Drawer, Flex, Form, Result, Skeleton, Tag } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useForm, useWatch, type FieldErrors } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useIsMobile } from '../../../lib/useIsMobile';
import { fetchChannel } from '../api';
import { channelFormSchema, NEW_CHANNEL, toForm, type ChannelForm } from '../model/channelForm';
import { looksMultiKey } from '../model/keys';
import { AdvancedSection } from './AdvancedSection';
import { BasicSection } from './BasicSection';
import { KeyField } from './KeyField';
import { ModelsSection } from './ModelsSection';
import { RoutingSection } from './RoutingSection';
import { useChannelSubmit } from './useChannelSubmit';

/** 'new' opens the add form; a number edits that channel; null is closed. */
export type EditorTarget = number | 'new' | null;

interface Props {
  target: EditorTarget;
  onClose: () => void;
  onSaved: () => void;
}

/** The channel editor drawer: width 900, full width on mobile. */
export function ChannelEditorDrawer({ target, onClose, onSaved }: Props) {
  const { t } = useTranslation('channels');
  const { message } = App.useApp();
  const mobile = useIsMobile();
  const isCreate = target === 'new';
  const editId = typeof target === 'number' ? target : undefined;
  const [saving, setSaving] = useState(false);
  /** The full key once root revealed it; until then the form's key is blank and the stored key is kept. */
  const [revealed, setRevealed] = useState<string | undefined>(undefined);

  const loaded = useQuery({
    queryKey: ['channel', editId],
    queryFn: () => fetchChannel(editId!),
    enabled: editId !== undefined,
    gcTime: 0,
  });
  const schema = useMemo(() => channelFormSchema(isCreate), [isCreate]);
  const { control, handleSubmit, reset, setValue } = useForm<ChannelForm>({
    resolver: zodResolver(schema),
    defaultValues: NEW_CHANNEL,
    mode: 'onTouched',
  });

  const [type, key, multiOff] = useWatch({ control, name: ['type', 'key', 'multi_key_off'] });
  useEffect(() => {
    if (isCreate) reset(NEW_CHANNEL);
  }, [isCreate, reset]);
  useEffect(() => {
    setRevealed(undefined);
    if (editId !== undefined && loaded.data) reset(toForm(loaded.data));
  }, [editId, loaded.data, reset]);

  const loadedMulti = !isCreate && loaded.data?.channel_info?.is_multi_key === true;
  const multiView = type !== ChannelType.VertexAi && (loadedMulti || (!multiOff && looksMultiKey(key)));

  const submitChannel = useChannelSubmit();
  const onInvalid = (errors: FieldErrors<ChannelForm>) => {
    const first = Object.values(errors).find((e) => e && typeof e.message === 'string');
    if (first?.message) void message.error(t(String(first.message)));
  };
  const submit = handleSubmit(async (values) => {
    setSaving(true);
    try {
      // An unchanged revealed key is not sent again, as an untouched blank field is not.
      const base = loaded.data && revealed !== undefined ? { ...loaded.data, key: revealed } : loaded.data;
      if (await submitChannel(values, { isCreate, multiView, loaded: base })) onSaved();
    } finally {
      setSaving(false);
    }
  }, onInvalid);

  const open = target !== null;
  const title = isCreate
    ? t('editor.addTitle')
    : loaded.data
      ? t('editor.editTitleFor', { name: loaded.data.name })
      : t('editor.editTitle');
  const ready = isCreate || (loaded.data !== undefined && !loaded.isFetching);

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={
        <Flex align="center" gap={8} wrap>
          <span>{title}</span>
          {editId !== undefined ? <Tag variant="filled">ID {editId}</Tag> : null}
        </Flex>
      }
      size={mobile ? '100%' : 900}
      destroyOnHidden
      className="tw-ch-editor"
      footer={
        <Flex justify="end" gap={8}>
          <Button onClick={onClose}>{t('common:action.cancel')}</Button>
          <Button
            type="primary"
            loading={saving}
            disabled={!ready}
            onClick={() => void submit()}
            data-testid="channel-form-submit"
          >
            {t('common:action.submit')}
          </Button>
        </Flex>
      }
    >
      {loaded.isError ? (
        <Result status="warning" title={t('editor.loadFailed')} />
      ) : !ready ? (
        <Skeleton active paragraph={{ rows: 12 }} />
      ) : (
        <Form layout="vertical" onFinish={() => void submit()} data-testid="channel-form">
          <BasicSection control={control} />
          <KeyField
            control={control}
            isCreate={isCreate}
            multiView={multiView}
            loaded={loaded.data}
            onKeyUpdateChange={(mode) => setValue('key', mode === 'append' ? '' : (revealed ?? ''))}
            revealed={revealed !== undefined}
            onRevealed={(key) => {
              setRevealed(key);
              setValue('key', key);
            }}
          />
          <ModelsSection
            control={control}
            setValue={setValue}
            isCreate={isCreate}
            channelId={editId}
            loadedKey={revealed}
          />
          <RoutingSection control={control} />
          <AdvancedSection control={control} />
        </Form>
      )}
    </Drawer>
  );
}
