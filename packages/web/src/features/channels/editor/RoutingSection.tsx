import { ApartmentOutlined } from '@ant-design/icons';
import { Col, Flex, Row, Select, Switch, Typography } from 'antd';
import { useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../../components/FormField';
import { IntegerInput } from '../../../components/IntegerInput';
import { useChannelGroups } from '../api';
import type { ChannelForm } from '../model/channelForm';
import { Section } from './Section';
import { TextField } from '../../../components/TextField';

/** Groups, priority, weight, tag and automatic disabling. */
export function RoutingSection({ control }: { control: Control<ChannelForm> }) {
  const { t } = useTranslation('channels');
  const groups = useChannelGroups();
  const selected = useWatch({ control, name: 'groups' });
  const options = [...new Set([...(groups.data ?? []), ...selected])].map((g) => ({ value: g, label: g }));
  return (
    <Section icon={<ApartmentOutlined />} title={t('editor.routing')}>
      <Row gutter={16}>
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="groups"
            label={t('editor.groups')}
            required
            extra={t('editor.groupsHint')}
            render={(f) => (
              <Select
                mode="multiple"
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                options={options}
                loading={groups.isLoading}
                placeholder={t('editor.groupsPlaceholder')}
                data-testid="channel-form-groups"
              />
            )}
          />
        </Col>
        <Col xs={24} md={12}>
          <TextField
            control={control}
            name="tag"
            label={t('editor.tag')}
            extra={t('editor.tagHint')}
            maxLength={64}
            placeholder={t('editor.tagPlaceholder')}
            data-testid="channel-form-tag"
            autoComplete="off"
          />
        </Col>
        <Col xs={12} md={6}>
          <FormField
            control={control}
            name="priority"
            label={t('editor.priority')}
            render={(f) => (
              <IntegerInput
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                min={-999}
                testid="channel-form-priority"
              />
            )}
          />
        </Col>
        <Col xs={12} md={6}>
          <FormField
            control={control}
            name="weight"
            label={t('editor.weight')}
            render={(f) => (
              <IntegerInput
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                min={0}
                testid="channel-form-weight"
              />
            )}
          />
        </Col>
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="auto_ban"
            label={t('editor.autoBan')}
            render={(f) => (
              <Flex align="center" gap={10} className="tw-ch-switch-row">
                <Switch checked={f.value} onChange={f.onChange} data-testid="channel-form-auto-ban" />
                <Typography.Text type="secondary">{t('editor.autoBanHint')}</Typography.Text>
              </Flex>
            )}
          />
        </Col>
      </Row>
      <Typography.Text type="secondary" className="tw-ch-hint">
        {t('editor.priorityHint')}
      </Typography.Text>
    </Section>
  );
}
