import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { App, Col, Divider, Form, Input, InputNumber, Row, Switch, Typography } from 'antd';
import { useEffect, useMemo } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useSubmit } from '../../../lib/useSubmit';
import { useQuotaFormat } from '../../me/api';
import { FormField } from '../../shell/FormField';
import { EditorDrawer } from '../../shell/EditorDrawer';
import { createRedemptions, fetchRedemption, updateRedemption } from '../api';
import { formDefaults, KEY_MAX, MAX_BATCH, NAME_MAX, redemptionFormSchema, toInput, type RedemptionForm } from '../schema';
import { EpochInput, QuotaInput } from './RedemptionFields';

interface Props {
  /** undefined: closed; null: create; a number: edit that code. */
  target: number | null | undefined;
  onClose: () => void;
  /** After a save; `keys` are the created codes (create only). */
  onSaved: (keys?: string[], name?: string) => void;
}

/** The redemption editor (spec 2 §3, spec 3 §5) in a side drawer, width 900 (full on mobile). */
export function RedemptionDrawer({ target, onClose, onSaved }: Props) {
  const { t } = useTranslation('redemption');
  const { message } = App.useApp();
  const fmt = useQuotaFormat();
  const open = target !== undefined;
  const creating = target === null;
  const editId = typeof target === 'number' ? target : null;
  const { loading: saving, run } = useSubmit();

  const code = useQuery({ queryKey: ['redemption', editId], queryFn: () => fetchRedemption(editId!), enabled: editId !== null, gcTime: 0 });
  const schema = useMemo(() => redemptionFormSchema(creating), [creating]);
  const { control, handleSubmit, reset } = useForm<RedemptionForm>({ resolver: zodResolver(schema), defaultValues: formDefaults() });
  const [isGift, quota] = useWatch({ control, name: ['is_gift', 'quota'] });

  useEffect(() => {
    if (creating) reset(formDefaults());
  }, [creating, reset]);
  useEffect(() => {
    if (editId !== null && code.data) reset(formDefaults(code.data));
  }, [editId, code.data, reset]);

  const submit = handleSubmit((v) =>
    run(async () => {
      if (creating) {
        const keys = await createRedemptions({ ...toInput(v), count: v.count, key: v.key.trim() });
        void message.success(t('toast.created', { count: keys.length }));
        onSaved(keys, v.name.trim());
      } else if (editId !== null) {
        await updateRedemption({ ...toInput(v), id: editId });
        void message.success(t('toast.updated'));
        onSaved();
      }
    }),
  );

  return (
    <EditorDrawer
      open={open}
      onClose={onClose}
      title={creating ? t('drawer.addTitle') : t('drawer.editTitle')}
      width={900}
      saving={saving}
      loading={editId !== null && code.isPending}
      failed={code.isError ? t('drawer.loadFailed') : undefined}
      onSubmit={() => void submit()}
      testid="redemption-drawer"
      submitTestid="redemption-form-submit"
    >
      <Form layout="vertical" onFinish={() => void submit()} requiredMark>
        <Divider titlePlacement="start" style={{ marginTop: 0 }}>
          {t('drawer.basic')}
        </Divider>
        <FormField
          control={control}
          name="name"
          label={t('field.name')}
          required
          render={(f) => <Input {...f} data-testid="redemption-form-name" placeholder={t('placeholder.name')} maxLength={NAME_MAX} showCount autoFocus />}
        />
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
                  <InputNumber
                    value={f.value}
                    min={1}
                    max={MAX_BATCH}
                    precision={0}
                    onChange={(v) => f.onChange(typeof v === 'number' ? v : null)}
                    onBlur={f.onBlur}
                    style={{ width: '100%' }}
                    data-testid="redemption-form-count"
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
                render={(f) => <Input {...f} maxLength={KEY_MAX} placeholder={t('placeholder.key')} className="tw-red-key" data-testid="redemption-form-key" />}
              />
            </Col>
          </Row>
        ) : (
          <Typography.Paragraph type="secondary" className="tw-red-key" data-testid="redemption-form-current-key">
            {code.data?.key} · {t('hint.noEditKey')}
          </Typography.Paragraph>
        )}
        <Divider titlePlacement="start">{t('drawer.gift')}</Divider>
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
                  <InputNumber
                    value={f.value}
                    min={-1}
                    precision={0}
                    placeholder={t('value.unlimited')}
                    onChange={(v) => f.onChange(typeof v === 'number' ? v : null)}
                    onBlur={f.onBlur}
                    style={{ width: '100%' }}
                    data-testid="redemption-form-max-uses"
                  />
                )}
              />
            </Col>
          ) : null}
        </Row>
        <Row gutter={16}>
          <Col xs={24} sm={12}>
            <FormField
              control={control}
              name="valid_from"
              label={t('field.validFrom')}
              extra={t('hint.validFrom')}
              render={(f) => <EpochInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} placeholder={t('placeholder.validFrom')} testid="redemption-form-valid-from" />}
            />
          </Col>
          <Col xs={24} sm={12}>
            <FormField
              control={control}
              name="valid_until"
              label={t('field.validUntil')}
              extra={t('hint.validUntil')}
              render={(f) => <EpochInput value={f.value} onChange={f.onChange} onBlur={f.onBlur} placeholder={t('placeholder.validUntil')} testid="redemption-form-valid-until" />}
            />
          </Col>
        </Row>
        <button type="submit" hidden />
      </Form>
    </EditorDrawer>
  );
}
