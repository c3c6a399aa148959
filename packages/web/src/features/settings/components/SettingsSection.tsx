import { zodResolver } from '@hookform/resolvers/zod';
import { SaveOutlined } from '@ant-design/icons';
import type { OptionKey } from '@tollway/shared';
import { Button, Card, Flex, Form, Row, Typography } from 'antd';
import { useMemo, type ReactNode } from 'react';
import { FormProvider, useForm, type Resolver } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { canEditOption } from '../model/access';
import { formValuesFor, sectionSchema, type SectionValues } from '../model/options';
import { useOptions } from '../model/useOptions';
import { useSectionSave, type BeforeSave } from '../model/useSectionSave';

interface Props {
  /** Used in data-testid settings-save-<id>. */
  id: string;
  title: ReactNode;
  description?: ReactNode;
  keys: readonly OptionKey[];
  /** Extra zod rules per key, replacing the ones derived from optionDefs. */
  rules?: Partial<Record<OptionKey, z.ZodType>>;
  beforeSave?: BeforeSave;
  /** Render without the card (for a section inside another card, e.g. an inner tab). */
  plain?: boolean;
  /** Extra content shown next to the Save button (left of it). */
  actions?: ReactNode;
  children: ReactNode;
}

/**
 * One settings section: a card holding a react-hook-form form over `keys` (zod rules derived from optionDefs),
 * its fields as children (OptionField and friends read the form from context), and its own Save button. Only the
 * keys the signed-in user may change take part (an administrator's hidden root-only fields are neither read nor
 * sent); a section with none of them is not shown.
 */
export function SettingsSection(props: Props) {
  const editable = useMemo(() => props.keys.filter(canEditOption), [props.keys]);
  if (editable.length === 0) return null;
  return <SectionForm {...props} keys={editable} />;
}

function SectionForm({ id, title, description, keys, rules, beforeSave, plain, actions, children }: Props) {
  const { t } = useTranslation('settings');
  const options = useOptions().data ?? {};
  const schema = useMemo(() => sectionSchema(keys, t, rules), [keys, t, rules]);
  const form = useForm<SectionValues>({
    // The section schema is built at run time from option keys, so its inferred type is a loose record.
    resolver: zodResolver(schema) as unknown as Resolver<SectionValues>,
    defaultValues: formValuesFor(keys, options),
    mode: 'onTouched',
  });
  const { save, saving } = useSectionSave(keys, form, options, beforeSave);

  const body = (
    <>
      {description ? (
        <Typography.Paragraph type="secondary" style={{ marginTop: plain ? 0 : -4 }}>
          {description}
        </Typography.Paragraph>
      ) : null}
      <FormProvider {...form}>
        <Form layout="vertical" onFinish={() => void save()} requiredMark={false}>
          <Row gutter={[24, 0]}>{children}</Row>
          <Flex justify="flex-end" wrap gap={8} style={{ marginBottom: 8 }}>
            {actions}
            <Button
              type="primary"
              htmlType="submit"
              icon={<SaveOutlined />}
              loading={saving}
              data-testid={`settings-save-${id}`}
            >
              {t('save')}
            </Button>
          </Flex>
        </Form>
      </FormProvider>
    </>
  );

  if (plain)
    return (
      <div id={`section-${id}`} data-testid={`settings-section-${id}`}>
        {body}
      </div>
    );
  return (
    <Card
      id={`section-${id}`}
      data-testid={`settings-section-${id}`}
      title={title}
      size="small"
      styles={{ header: { fontSize: 15 }, body: { paddingBottom: 8 } }}
      style={{ marginBottom: 16, scrollMarginTop: 120 }}
    >
      {body}
    </Card>
  );
}
