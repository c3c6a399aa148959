import { Form, Input, Radio } from 'antd';
import { useWatch, type Control } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { MESSAGE_TITLE_MAX } from '@tollway/shared';
import { FormField } from '../../../components/FormField';
import { RichContent } from '../../../components/RichContent';
import type { MessageForm } from '../schema';
import { TextField } from '../../../components/TextField';

/**
 * Title, format (markdown or html), content (8-row monospace) and a preview rendered as recipients will see it
 * (in the chosen format, sanitized), shared by the create and edit drawers.
 */
export function MessageFields({ control }: { control: Control<MessageForm> }) {
  const { t } = useTranslation('messages');
  const [content, format] = useWatch({ control, name: ['content', 'format'] });
  return (
    <>
      <TextField
        control={control}
        name="title"
        label={t('field.title')}
        required
        maxLength={MESSAGE_TITLE_MAX}
        placeholder={t('placeholder.title')}
        data-testid="message-title"
      />
      <FormField
        control={control}
        name="format"
        label={t('field.format')}
        render={(f) => (
          <Radio.Group value={f.value} onChange={(e) => f.onChange(e.target.value)} data-testid="message-format">
            <Radio value="markdown">{t('format.markdown')}</Radio>
            <Radio value="html">{t('format.html')}</Radio>
          </Radio.Group>
        )}
      />
      <FormField
        control={control}
        name="content"
        label={t('field.content')}
        required
        render={(f) => (
          <Input.TextArea
            {...f}
            rows={8}
            className="tw-mono"
            placeholder={t('placeholder.content')}
            data-testid="message-content-input"
          />
        )}
      />
      {content?.trim() ? (
        <Form.Item label={t('preview')}>
          <div className="tw-message-preview">
            <RichContent content={content} format={format} testId="message-preview" />
          </div>
        </Form.Item>
      ) : null}
    </>
  );
}
