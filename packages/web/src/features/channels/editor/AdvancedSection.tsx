import { ControlOutlined } from '@ant-design/icons';
import { Col, Input, Row } from 'antd';
import { useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { FormField } from '../../../components/FormField';
import { IntegerInput } from '../../../components/IntegerInput';
import { MODEL_PREFIX_MAX, type ChannelForm } from '../model/channelForm';
import { TextField } from '../../../components/TextField';
import { TEMPLATES } from '../model/json';
import { otherKindOf } from '../model/keys';
import { JsonTextArea } from './JsonTextArea';
import { Section } from './Section';

/** Type-specific `other` (type 41 region text or JSON, type 18 version v2.1 …), status-code mapping, system prompt, param override, setting, model prefix, input token cap. */
export function AdvancedSection({ control }: { control: Control<ChannelForm> }) {
  const { t } = useTranslation('channels');
  const type = useWatch({ control, name: 'type' });
  const other = otherKindOf(type);
  return (
    <Section icon={<ControlOutlined />} title={t('editor.advanced')}>
      <Row gutter={16}>
        {other ? (
          <Col xs={24}>
            <FormField
              control={control}
              name="other"
              label={t(`other.${other}`)}
              extra={t(`other.${other}Hint`)}
              render={(f) =>
                other === 'region' ? (
                  <JsonTextArea
                    value={f.value}
                    onChange={f.onChange}
                    onBlur={f.onBlur}
                    template={TEMPLATES.region}
                    placeholder={t('other.regionPlaceholder')}
                    minRows={2}
                    testId="channel-form-other"
                  />
                ) : (
                  <Input
                    {...f}
                    placeholder={t(`other.${other}Placeholder`)}
                    data-testid="channel-form-other"
                    autoComplete="off"
                  />
                )
              }
            />
          </Col>
        ) : null}
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="status_code_mapping"
            label={t('editor.statusCodeMapping')}
            extra={t('editor.statusCodeMappingHint')}
            render={(f) => (
              <JsonTextArea
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                template={TEMPLATES.statusCodeMapping}
                testId="channel-form-status-code-mapping"
              />
            )}
          />
        </Col>
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="param_override"
            label={t('editor.paramOverride')}
            extra={t('editor.paramOverrideHint')}
            render={(f) => (
              <JsonTextArea
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                template={TEMPLATES.paramOverride}
                testId="channel-form-param-override"
              />
            )}
          />
        </Col>
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="setting"
            label={t('editor.setting')}
            extra={t('editor.settingHint')}
            render={(f) => (
              <JsonTextArea
                value={f.value}
                onChange={f.onChange}
                onBlur={f.onBlur}
                template={TEMPLATES.setting}
                testId="channel-form-setting"
              />
            )}
          />
        </Col>
        <Col xs={24} md={6}>
          <FormField
            control={control}
            name="rpm_limit"
            label={t('editor.rpmLimit')}
            extra={t('editor.perMinuteHint')}
            render={(f) => (
              <IntegerInput
                value={f.value}
                onChange={(v) => f.onChange(v ?? 0)}
                onBlur={f.onBlur}
                min={0}
                testid="channel-form-rpm"
              />
            )}
          />
        </Col>
        <Col xs={24} md={6}>
          <FormField
            control={control}
            name="tpm_limit"
            label={t('editor.tpmLimit')}
            extra={t('editor.perMinuteHint')}
            render={(f) => (
              <IntegerInput
                value={f.value}
                onChange={(v) => f.onChange(v ?? 0)}
                onBlur={f.onBlur}
                min={0}
                step={1000}
                testid="channel-form-tpm"
              />
            )}
          />
        </Col>
        <Col xs={24} md={6}>
          <TextField
            control={control}
            name="model_prefix"
            label={t('editor.modelPrefix')}
            extra={t('editor.modelPrefixHint')}
            maxLength={MODEL_PREFIX_MAX}
            data-testid="channel-form-model-prefix"
            autoComplete="off"
          />
        </Col>
        <Col xs={24} md={6}>
          <FormField
            control={control}
            name="max_input_tokens"
            label={t('editor.maxInputTokens')}
            extra={t('editor.maxInputTokensHint')}
            render={(f) => (
              <IntegerInput
                value={f.value}
                onChange={(v) => f.onChange(v ?? 0)}
                onBlur={f.onBlur}
                testid="channel-form-max-input-tokens"
              />
            )}
          />
        </Col>
        <Col xs={24} md={12}>
          <FormField
            control={control}
            name="system_prompt"
            label={t('editor.systemPrompt')}
            extra={t('editor.systemPromptHint')}
            render={(f) => (
              <Input.TextArea
                {...f}
                autoSize={{ minRows: 3, maxRows: 10 }}
                placeholder={t('editor.systemPromptPlaceholder')}
                data-testid="channel-form-system-prompt"
              />
            )}
          />
        </Col>
      </Row>
    </Section>
  );
}
