import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Form, Input, Typography } from 'antd';
import { Controller, useFieldArray, useWatch, type Control, type UseFormSetValue } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { TipButton } from '../../../components/TipButton';
import { headersChanged, STORED_VALUE, type ServerForm } from '../schema';

/** Most header rows (the server's limit). */
const HEADERS_MAX = 32;

/**
 * The request headers sent to the server as name/value rows. A stored value is never answered: its box shows ***
 * and stays as it is unless retyped; changing the set (a row added, removed or renamed) needs every value again,
 * since the API replaces all headers at once.
 */
export function HeadersEditor({
  control,
  setValue,
}: {
  control: Control<ServerForm>;
  setValue: UseFormSetValue<ServerForm>;
}) {
  const { t } = useTranslation('mcp');
  const { fields, append, remove } = useFieldArray({ control, name: 'headers' });
  const [rows, removed] = useWatch({ control, name: ['headers', 'headers_removed'] });
  const changed = headersChanged({ headers: rows ?? [], headers_removed: removed ?? false });
  const anyStored = (rows ?? []).some((r) => r.stored);
  const drop = (i: number) => {
    if (rows?.[i]?.stored) setValue('headers_removed', true, { shouldDirty: true });
    remove(i);
  };

  return (
    <Form.Item label={t('field.headers')} extra={changed && anyStored ? t('hint.headersRetype') : t('hint.headers')}>
      <Flex vertical gap={8}>
        {fields.map((f, i) => (
          <Flex key={f.id} gap={8} align="start" data-testid={`mcp-header-row-${i}`}>
            <Controller
              control={control}
              name={`headers.${i}.name`}
              render={({ field, fieldState }) => (
                <Form.Item
                  style={{ flex: 2, marginBottom: 0 }}
                  validateStatus={fieldState.error ? 'error' : undefined}
                  help={fieldState.error ? t('validation.headerName') : undefined}
                >
                  <Input
                    {...field}
                    onChange={(e) => {
                      field.onChange(e);
                      // A stored header renamed: the old name goes, the new one needs its value.
                      if (rows?.[i]?.stored) {
                        setValue(`headers.${i}.stored`, false);
                        setValue('headers_removed', true, { shouldDirty: true });
                      }
                    }}
                    placeholder={t('placeholder.headerName')}
                    aria-label={t('field.headerName')}
                    data-testid={`mcp-header-name-${i}`}
                  />
                </Form.Item>
              )}
            />
            <Controller
              control={control}
              name={`headers.${i}.value`}
              render={({ field, fieldState }) => (
                <Form.Item
                  style={{ flex: 3, marginBottom: 0 }}
                  validateStatus={fieldState.error ? 'error' : undefined}
                  help={fieldState.error ? t('validation.headerValue') : undefined}
                >
                  <Input.Password
                    {...field}
                    autoComplete="off"
                    placeholder={rows?.[i]?.stored ? STORED_VALUE : t('placeholder.headerValue')}
                    aria-label={t('field.headerValue')}
                    data-testid={`mcp-header-value-${i}`}
                  />
                </Form.Item>
              )}
            />
            <TipButton
              label={t('actions.removeHeader')}
              icon={<DeleteOutlined />}
              onClick={() => drop(i)}
              data-testid={`mcp-header-remove-${i}`}
            />
          </Flex>
        ))}
        {fields.length === 0 ? <Typography.Text type="secondary">{t('hint.noHeaders')}</Typography.Text> : null}
        <Button
          icon={<PlusOutlined />}
          disabled={fields.length >= HEADERS_MAX}
          onClick={() => append({ name: '', value: '', stored: false })}
          data-testid="mcp-header-add"
          style={{ alignSelf: 'flex-start' }}
        >
          {t('actions.addHeader')}
        </Button>
      </Flex>
    </Form.Item>
  );
}
