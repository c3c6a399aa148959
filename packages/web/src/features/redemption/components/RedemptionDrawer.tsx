import { zodResolver } from '@hookform/resolvers/zod';
import { App, Col, Input, Row, Switch, Typography } from 'antd';
import { useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../../lib/self';
import { FormSection } from '../../../components/EditorForm';
import { FormField } from '../../../components/FormField';
import { ExactNumberInput } from '../../../components/ExactNumberInput';
import { IntegerInput } from '../../../components/IntegerInput';
import { RecordDrawer } from '../../../components/RecordDrawer';
import { useRecordEditor } from '../../../lib/useRecordEditor';
import { createRedemptions, fetchRedemption, updateRedemption } from '../api';
import { formDefaults, KEY_MAX, NAME_MAX, redemptionFormSchema, toInput } from '../schema';
import { EpochInput, QuotaInput } from './RedemptionFields';

const resolver = (creating: boolean) => zodResolver(redemptionFormSchema(creating));

/** The validity window's two ends: form field, i18n key (field., hint., placeholder.) and test id. */
const VALIDITY_FIELDS = [
  { name: 'valid_from', text: 'validFrom', testid: 'redemption-form-valid-from' },
  { name: 'valid_until', text: 'validUntil', testid: 'redemption-form-valid-until' },
] as const;

interface Props {
  /** undefined: closed; null: create; a number: edit that code. */
  target: number | null | undefined;
  onClose: () => void;
  /** After a save; `keys` are the created codes (create only). */
  onSaved: (keys?: string[], name?: string) => void;
}

/** The redemption editor in a side drawer, width 900 (full on mobile). */
export function RedemptionDrawer({ target, onClose, onSaved }: Props) {
  const { t } = useTranslation('redemption');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const editor = useRecordEditor({
    target,
    queryKey: 'redemption',
    fetch: fetchRedemption,
    resolver,
    defaults: formDefaults,
    create: async (v) => {
      const keys = await createRedemptions({ ...toInput(v), count: v.count, key: v.key.trim() });
      void message.success(t('toast.created', { count: keys.length }));
      onSaved(keys, v.name.trim());
    },
    update: async (v, id) => {
      await updateRedemption({ ...toInput(v), id });
      void message.success(t('toast.updated'));
      onSaved();
    },
  });
  const { creating, form } = editor;
  const { control } = form;
  const [isGift, quota] = useWatch({ control, name: ['is_gift', 'quota'] });

  return (
    <RecordDrawer
      ns="redemption"
      editor={editor}
      width={900}
      testPrefix="redemption"
      nameMax={NAME_MAX}
      onClose={onClose}
    >
      <FormField
        control={control}
        name="quota"
        label={t('field.quota')}
        required
        extra={t('hint.quota', { value: fmt(quota ?? 0) })}
        render={(f) => <QuotaInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} />}
      />
      {creating ? (
        <Row gutter={16}>
          <Col xs={24} sm={8}>
            <FormField
              control={control}
              name="count"
              label={t('field.count')}
              extra={t('hint.count')}
              render={(f) => (
                <ExactNumberInput
                  value={f.value}
                  onChange={f.onChange}
                  onBlur={f.onBlur}
                  testid="redemption-form-count"
                />
              )}
            />
          </Col>
          <Col xs={24} sm={16}>
            <FormField
              control={control}
              name="key"
              label={t('field.key')}
              extra={t('hint.key')}
              render={(f) => (
                <Input
                  {...f}
                  maxLength={KEY_MAX}
                  placeholder={t('placeholder.key')}
                  className="tw-red-key"
                  data-testid="redemption-form-key"
                />
              )}
            />
          </Col>
        </Row>
      ) : (
        <Typography.Paragraph type="secondary" className="tw-red-key" data-testid="redemption-form-current-key">
          {editor.record?.key} · {t('hint.noEditKey')}
        </Typography.Paragraph>
      )}
      <FormSection title={t('drawer.gift')} />
      <Row gutter={16}>
        <Col xs={24} sm={8}>
          <FormField
            control={control}
            name="is_gift"
            label={t('field.isGift')}
            extra={t('hint.isGift')}
            render={(f) => <Switch checked={f.value} onChange={f.onChange} data-testid="redemption-form-gift" />}
          />
        </Col>
        {isGift ? (
          <Col xs={24} sm={16}>
            <FormField
              control={control}
              name="max_uses"
              label={t('field.maxUses')}
              extra={t('hint.maxUses')}
              render={(f) => (
                <IntegerInput
                  value={f.value}
                  onChange={f.onChange}
                  onBlur={f.onBlur}
                  min={-1}
                  placeholder={t('value.unlimited')}
                  testid="redemption-form-max-uses"
                />
              )}
            />
          </Col>
        ) : null}
      </Row>
      <Row gutter={16}>
        {VALIDITY_FIELDS.map(({ name, text, testid }) => (
          <Col key={name} xs={24} sm={12}>
            <FormField
              control={control}
              name={name}
              label={t(`field.${text}`)}
              extra={t(`hint.${text}`)}
              render={(f) => (
                <EpochInput
                  value={f.value}
                  onChange={f.onChange}
                  onBlur={f.onBlur}
                  placeholder={t(`placeholder.${text}`)}
                  testid={testid}
                />
              )}
            />
          </Col>
        ))}
      </Row>
    </RecordDrawer>
  );
}
