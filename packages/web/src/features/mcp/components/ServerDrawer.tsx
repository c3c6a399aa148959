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

const resolver = () => zodResolver(serverFormSchema);

interface Props {
  /** undefined: closed; null: register a server; a number: edit that server. */
  target: number | null | undefined;
  onClose: () => void;
  onSaved: () => void;
}

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
      <ListField
        control={control}
        name="allow_tools"
        label={t('field.allowTools')}
        extra={t('hint.allowTools')}
        placeholder="search_*, read_file"
      />
      <ListField
        control={control}
        name="deny_tools"
        label={t('field.denyTools')}
        extra={t('hint.denyTools')}
        placeholder="delete_*"
      />
      <ListField
        control={control}
        name="allow_groups"
        label={t('field.allowGroups')}
        extra={t('hint.allowGroups')}
        placeholder="default, vip"
      />
      <Row gutter={16}>
        <SwitchField control={control} name="read_only" label={t('field.readOnly')} extra={t('hint.readOnly')} />
        <SwitchField
          control={control}
          name="log_arguments"
          label={t('field.logArguments')}
          extra={t('hint.logArguments')}
        />
      </Row>
      <FormSection title={t('drawer.priceLimits')} />
      <Row gutter={16}>
        <CountField
          control={control}
          name="price"
          label={t('field.price')}
          extra={t('hint.price', { value: fmt(price ?? 0) })}
        />
        <CountField control={control} name="rate_limit" label={t('field.rateLimit')} extra={t('hint.rateLimit')} />
        <CountField
          control={control}
          name="max_concurrent"
          label={t('field.maxConcurrent')}
          extra={t('hint.maxConcurrent')}
        />
      </Row>
    </RecordDrawer>
  );
}
