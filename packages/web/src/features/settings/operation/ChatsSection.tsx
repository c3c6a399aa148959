import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { OptionKey } from '@tollway/shared';
import { Alert, Button, Col, Empty, Flex, Form, Input, Segmented, Typography } from 'antd';
import { useState } from 'react';
import { useController } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { fieldName } from '../model/options';

/** The section's options (root's alone: the console fills chat links with the viewer's key). */
export const CHATS_KEYS: OptionKey[] = ['Chats'];

interface ChatEntry {
  name: string;
  link: string;
}

/** Chats is a JSON list of one-entry objects, { "client name": "link" }; null when the text is not such a list. */
export function parseChats(text: string): ChatEntry[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const out: ChatEntry[] = [];
  for (const item of parsed) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) return null;
    for (const [name, link] of Object.entries(item as Record<string, unknown>)) {
      if (typeof link !== 'string') return null;
      out.push({ name, link });
    }
  }
  return out;
}

export const chatsText = (list: ChatEntry[]): string =>
  JSON.stringify(
    list.map((e) => ({ [e.name]: e.link })),
    null,
    2,
  );

/** The entries as editable rows (name + link), kept in step with the JSON text of the form field. */
function ChatList({ onBroken }: { onBroken: () => void }) {
  const { t } = useTranslation('settings');
  const { field } = useController({ name: fieldName('Chats') });
  const list = parseChats(String(field.value ?? ''));
  if (!list)
    return (
      <Alert
        type="error"
        showIcon
        title={t('chats.broken')}
        action={
          <Button size="small" onClick={onBroken}>
            {t('chats.toJson')}
          </Button>
        }
        style={{ marginBottom: 16 }}
      />
    );
  const update = (next: ChatEntry[]) => field.onChange(chatsText(next));
  const set = (i: number, patch: Partial<ChatEntry>) => update(list.map((e, j) => (j === i ? { ...e, ...patch } : e)));
  const dupes = new Set(list.map((e) => e.name.trim()).filter((n, i, all) => n && all.indexOf(n) !== i));

  return (
    <Form.Item label={t('field.Chats')} extra={t('chats.listHelp')}>
      <Flex vertical gap={8} data-testid="chats-list">
        {list.length === 0 ? (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('chats.empty')} style={{ margin: '8px 0' }} />
        ) : null}
        {list.map((e, i) => (
          <Flex key={i} gap={8} wrap align="flex-start" data-testid={`chats-row-${i}`}>
            <Input
              value={e.name}
              onChange={(ev) => set(i, { name: ev.target.value })}
              placeholder={t('chats.name')}
              status={!e.name.trim() || dupes.has(e.name.trim()) ? 'error' : undefined}
              style={{ flex: '1 1 160px', maxWidth: 260 }}
              aria-label={t('chats.name')}
              data-testid={`chats-name-${i}`}
            />
            <Input
              value={e.link}
              onChange={(ev) => set(i, { link: ev.target.value })}
              placeholder="https://chat.example.com/#/?key={key}"
              style={{
                flex: '3 1 240px',
                fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
                fontSize: 13,
              }}
              aria-label={t('chats.link')}
              data-testid={`chats-link-${i}`}
            />
            <Button
              icon={<DeleteOutlined />}
              aria-label={t('common:action.delete')}
              onClick={() => update(list.filter((_, j) => j !== i))}
              data-testid={`chats-delete-${i}`}
            />
          </Flex>
        ))}
        {dupes.size > 0 ? <Typography.Text type="danger">{t('chats.duplicate')}</Typography.Text> : null}
        <div>
          <Button
            icon={<PlusOutlined />}
            type="dashed"
            onClick={() => update([...list, { name: '', link: '' }])}
            data-testid="chats-add"
          >
            {t('chats.add')}
          </Button>
        </div>
      </Flex>
    </Form.Item>
  );
}

/** Chat settings: the chat clients shown to users, edited as a list or as raw JSON (validated on blur). */
export function ChatsSection() {
  const { t } = useTranslation('settings');
  const [view, setView] = useState<'list' | 'json'>('json');
  const beforeSave = (values: Record<string, unknown>) => {
    const list = parseChats(String(values[fieldName('Chats')] ?? ''));
    if (!list) return null;
    const names = list.map((e) => e.name.trim());
    if (names.some((n) => !n)) return t('chats.nameRequired');
    if (new Set(names).size !== names.length) return t('chats.duplicate');
    return null;
  };
  return (
    <SettingsSection
      id="chats"
      title={t('section.chats.title')}
      description={t('section.chats.desc')}
      keys={CHATS_KEYS}
      beforeSave={beforeSave}
    >
      <Col span={24} style={{ marginBottom: 12 }}>
        <Segmented
          value={view}
          onChange={(v) => setView(v as 'list' | 'json')}
          options={[
            { value: 'json', label: t('chats.viewJson') },
            { value: 'list', label: t('chats.viewList') },
          ]}
          data-testid="chats-view"
        />
      </Col>
      {view === 'list' ? (
        <Col span={24}>
          <ChatList onBroken={() => setView('json')} />
        </Col>
      ) : (
        <OptionField k="Chats" />
      )}
    </SettingsSection>
  );
}
