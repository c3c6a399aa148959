import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import { createChannel, updateChannel, type Channel, type CreateMode, type UpdateChannelInput } from '../api';
import { normalizeBaseUrl, toPayload, type ChannelForm } from '../model/channelForm';
import { splitKeys } from '../model/keys';
import { quietly } from '../model/useChannelActions';

interface Context {
  isCreate: boolean;
  multiView: boolean;
  loaded?: Channel;
}

/**
 * Saves the editor: confirms a base URL ending in /v1, then POST /api/channel/ (single, batch or
 * multi_to_single) or PUT /api/channel/ (the key only when it changed). Resolves true when saved.
 */
export function useChannelSubmit() {
  const { t } = useTranslation('channels');
  const { message, modal } = App.useApp();

  return async (v: ChannelForm, { isCreate, multiView, loaded }: Context): Promise<boolean> => {
    if (/\/v1$/i.test(normalizeBaseUrl(v.base_url))) {
      const go = await modal.confirm({
        title: t('editor.v1Title'),
        content: t('editor.v1Confirm'),
        okText: t('editor.v1Continue'),
        cancelText: t('editor.v1Back'),
        okButtonProps: { 'data-testid': 'channel-v1-continue' } as never,
      });
      if (!go) return false;
    }
    const payload = toPayload(v);

    if (isCreate) {
      const mode: CreateMode = multiView ? v.create_mode : 'single';
      const key = multiView ? splitKeys(v.key).join('\n') : v.key.trim();
      const ids = await quietly(() =>
        createChannel({ mode, multi_key_mode: v.multi_key_mode, channel: { ...payload, key } }),
      );
      if (ids === undefined) return false;
      void message.success(ids.length > 1 ? t('toast.createdMany', { count: ids.length }) : t('toast.created'));
      return true;
    }

    if (!loaded) return false;
    if (multiView && !loaded.channel_info?.is_multi_key) {
      void message.error(t('multiKey.editSingle'));
      return false;
    }
    const body: UpdateChannelInput = { id: loaded.id, ...payload };
    if (loaded.channel_info?.is_multi_key) {
      body.multi_key_mode = v.multi_key_mode;
      const keys = splitKeys(v.key).join('\n');
      if (keys !== '' && (v.key_update === 'append' || keys !== splitKeys(loaded.key).join('\n'))) {
        body.key = keys;
        body.key_mode = v.key_update;
      }
    } else if (v.key.trim() !== '' && v.key.trim() !== loaded.key.trim()) {
      body.key = v.key.trim();
    }
    const saved = await quietly(() => updateChannel(body));
    if (saved === undefined) return false;
    void message.success(t('toast.updated'));
    return true;
  };
}
