import { InfoCircleOutlined } from '@ant-design/icons';
import { channelTypeById, channelTypes, RESERVED_CHANNEL_TYPES } from '@tollway/shared';
import { Alert, Col, Row, Select, Typography } from 'antd';
import { useMemo } from 'react';
import { useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../../components/FormField';
import type { ChannelForm } from '../model/channelForm';
import { taskKindOf } from '../model/keys';
import { channelTypeLabel } from '../model/typeLabel';
import { Section } from './Section';
import { TextField } from '../../../components/TextField';

/** Type (label and id), name, base URL with the type default as placeholder, organization. */
export function BasicSection({ control }: { control: Control<ChannelForm> }) {
  const { t } = useTranslation('channels');
  const type = useWatch({ control, name: 'type' });
  const info = channelTypeById.get(type);
  const task = taskKindOf(type);
  const typeOptions = useMemo(
    () =>
      channelTypes
        // Reserved ids are never offered; a channel already stored with one keeps showing its label.
        .filter((c) => !RESERVED_CHANNEL_TYPES.has(c.id) || c.id === type)
        .map((c) => ({
          value: c.id,
          disabled: RESERVED_CHANNEL_TYPES.has(c.id),
          title: RESERVED_CHANNEL_TYPES.has(c.id) ? t('typeReserved') : undefined,
          search: `${channelTypeLabel(t, c.id)} ${c.label} ${c.id}`,
          label: (
            <span className="tw-ch-type-option">
              <span>{channelTypeLabel(t, c.id)}</span>
              <Typography.Text type="secondary" className="tw-ch-type-id">
                {c.id}
              </Typography.Text>
            </span>
          ),
        })),
    [t, type],
  );
  return (
    <Section icon={<InfoCircleOutlined />} title={t('editor.basic')}>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="type"
            label={t('editor.type')}
            required
            render={(f) => (
              <Select
                value={f.value}
                onChange={(v: number) => f.onChange(v)}
                options={typeOptions}
                showSearch={{ optionFilterProp: 'search' }}
                data-testid="channel-form-type"
              />
            )}
          />
        </Col>
        {task ? (
          <Col xs={24}>
            <Alert
              type="info"
              showIcon
              title={t(`editor.taskType.${task}`)}
              style={{ marginBottom: 16 }}
              data-testid="channel-form-task-hint"
            />
          </Col>
        ) : null}
        <Col xs={24} md={12}>
          <TextField
            control={control}
            name="name"
            label={t('editor.name')}
            required
            maxLength={128}
            placeholder={t('editor.namePlaceholder')}
            data-testid="channel-form-name"
            autoComplete="off"
          />
        </Col>
        <Col xs={24}>
          <TextField
            control={control}
            name="base_url"
            label={t('editor.baseUrl')}
            extra={info?.baseUrl ? t('editor.baseUrlDefault', { url: info.baseUrl }) : t('editor.baseUrlRequired')}
            placeholder={info?.baseUrl || t('editor.baseUrlPlaceholder')}
            data-testid="channel-form-base-url"
            autoComplete="off"
            spellCheck={false}
          />
        </Col>
        {info?.format === 'openai' ? (
          <Col xs={24}>
            <TextField
              control={control}
              name="openai_organization"
              label={t('editor.organization')}
              extra={t('editor.organizationHint')}
              maxLength={128}
              placeholder={t('editor.organizationPlaceholder')}
              data-testid="channel-form-organization"
              autoComplete="off"
            />
          </Col>
        ) : null}
      </Row>
    </Section>
  );
}
