import { zodResolver } from '@hookform/resolvers/zod';
import { MCP_TRANSPORTS } from '@tollway/shared';
import { App, Col, Input, Row, Select, Switch } from 'antd';
import type { ReactElement } from 'react';
import { useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormSection } from '../../../components/EditorForm';
import { FormField } from '../../../components/FormField';
import { IntegerInput } from '../../../components/IntegerInput';
import { RecordDrawer } from '../../../components/RecordDrawer';
import { useQuotaFormat } from '../../../lib/self';
import { useRecordEditor } from '../../../lib/useRecordEditor';
import { createServer, fetchServer, updateServer } from '../api';
import { formDefaults, NAME_MAX, serverFormSchema, toBody, type ServerForm } from '../schema';
import { HeadersEditor } from './HeadersEditor';
import { OAuthFields } from './OAuthFields';

const resolver = () => zodResolver(serverFormSchema);

interface Props {
  /** undefined: closed; null: register a server; a number: edit that server. */
  target: number | null | undefined;
  onClose: () => void;
  onSaved: () => void;
}

/** The server's tool and group lists: form field, i18n key (field., hint.) and placeholder. */
const LISTS = [
  { name: 'allow_tools', text: 'allowTools', placeholder: 'search_*, read_file' },
  { name: 'deny_tools', text: 'denyTools', placeholder: 'delete_*' },
  { name: 'allow_groups', text: 'allowGroups', placeholder: 'default, vip' },
] as const;
/** The rules' switches and the price and limits: form field and i18n key. */
const RULE_SWITCHES = [
  { name: 'read_only', text: 'readOnly' },
  { name: 'log_arguments', text: 'logArguments' },
] as const;
const COUNTS = [
  { name: 'price', text: 'price' },
  { name: 'rate_limit', text: 'rateLimit' },
  { name: 'max_concurrent', text: 'maxConcurrent' },
] as const;

type Names<V> = { [K in keyof ServerForm]: ServerForm[K] extends V ? K : never }[keyof ServerForm];

/** A switch of the form, a third of a row wide. */
function SwitchField({
  control,
  name,
  label,
  extra,
}: {
  control: Control<ServerForm>;
  name: Names<boolean>;
  label: string;
  extra: string;
}) {
  return (
    <Col xs={24} sm={8}>
      <FormField
        control={control}
        name={name}
        label={label}
        extra={extra}
        render={(f) => (
          <Switch
            checked={f.value as boolean}
            onChange={f.onChange}
            aria-label={label}
            data-testid={`mcp-form-${name}`}
          />
        )}
      />
    </Col>
  );
}

/** A whole number of the form (0: none), a third of a row wide. */
function CountField(p: { control: Control<ServerForm>; name: Names<number>; label: string; extra: string }) {
  return (
    <Col xs={24} sm={8}>
      <FormField
        control={p.control}
        name={p.name}
        label={p.label}
        extra={p.extra}
        render={(f) => (
          <IntegerInput
            value={f.value as number}
            onChange={(v) => f.onChange(v ?? 0)}
            onBlur={f.onBlur}
            min={0}
            testid={`mcp-form-${p.name}`}
          />
        )}
      />
    </Col>
  );
}

/** A comma-separated list of the form. */
function ListField(p: {
  control: Control<ServerForm>;
  name: Names<string>;
  label: string;
  extra: string;
  placeholder: string;
}): ReactElement {
  return (
    <FormField
      control={p.control}
      name={p.name}
      label={p.label}
      extra={p.extra}
      render={(f) => (
        <Input {...f} value={f.value as string} placeholder={p.placeholder} data-testid={`mcp-form-${p.name}`} />
      )}
    />
  );
}

/** Registers or edits an MCP server: where it is reached, its headers, which tools it offers, its price and limits. */
export function ServerDrawer({ target, onClose, onSaved }: Props) {
  const { t } = useTranslation('mcp');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const editor = useRecordEditor({
    target,
    queryKey: 'mcp-server',
    fetch: fetchServer,
    resolver,
    defaults: formDefaults,
    create: async (v) => {
      await createServer(toBody(v));
      void message.success(t('toast.created'));
      onSaved();
    },
    update: async (v, id) => {
      await updateServer(id, toBody(v));
      void message.success(t('toast.updated'));
      onSaved();
    },
  });
  const { control, setValue } = editor.form;
  const [transport, price] = useWatch({ control, name: ['transport', 'price'] });
  const stdio = transport === 'stdio';

  return (
    <RecordDrawer ns="mcp" editor={editor} width={720} testPrefix="mcp" nameMax={NAME_MAX} onClose={onClose}>
      <FormField
        control={control}
        name="transport"
        label={t('field.transport')}
        extra={t(`hint.transport.${transport ?? 'http'}`)}
        render={(f) => (
          <Select
            {...f}
            options={MCP_TRANSPORTS.map((v) => ({ value: v, label: t(`transport.${v}`) }))}
            data-testid="mcp-form-transport"
          />
        )}
      />
      {stdio ? (
        <>
          <FormField
            control={control}
            name="command"
            label={t('field.command')}
            required
            extra={t('hint.command')}
            render={(f) => <Input {...f} placeholder="npx" data-testid="mcp-form-command" />}
          />
          <FormField
            control={control}
            name="args"
            label={t('field.args')}
            extra={t('hint.args')}
            render={(f) => <Input.TextArea {...f} autoSize={{ minRows: 2, maxRows: 8 }} data-testid="mcp-form-args" />}
          />
        </>
      ) : (
        <FormField
          control={control}
          name="url"
          label={t('field.url')}
          required
          extra={t('hint.url')}
          render={(f) => <Input {...f} placeholder="https://mcp.example.com/mcp" data-testid="mcp-form-url" />}
        />
      )}
      <HeadersEditor control={control} setValue={setValue} />
      <Row gutter={16}>
        <SwitchField control={control} name="enabled" label={t('field.enabled')} extra={t('hint.enabled')} />
      </Row>
      <FormSection title={t('drawer.tools')} />
      {LISTS.map((l) => (
        <ListField
          key={l.name}
          control={control}
          name={l.name}
          label={t(`field.${l.text}`)}
          extra={t(`hint.${l.text}`)}
          placeholder={l.placeholder}
        />
      ))}
      <Row gutter={16}>
        {RULE_SWITCHES.map((r) => (
          <SwitchField
            key={r.name}
            control={control}
            name={r.name}
            label={t(`field.${r.text}`)}
            extra={t(`hint.${r.text}`)}
          />
        ))}
      </Row>
      <FormSection title={t('drawer.priceLimits')} />
      <Row gutter={16}>
        {COUNTS.map((c) => (
          <CountField
            key={c.name}
            control={control}
            name={c.name}
            label={t(`field.${c.text}`)}
            extra={t(`hint.${c.text}`, { value: fmt(price ?? 0) })}
          />
        ))}
      </Row>
      {stdio ? null : <OAuthFields control={control} storedSecret={Boolean(editor.record?.oauth_client_secret)} />}
    </RecordDrawer>
  );
}
