import { MESSAGE_CONTENT_MAX, MESSAGE_TITLE_MAX } from '@tollway/shared';
import { z } from 'zod';

/** The message form: title and content required; recipients only when creating. Messages are i18n keys. */
export const messageFormSchema = z.object({
  title: z.string().trim().min(1, 'messages:validation.title').max(MESSAGE_TITLE_MAX),
  content: z.string().trim().min(1, 'messages:validation.content').max(MESSAGE_CONTENT_MAX),
  format: z.enum(['markdown', 'html']),
  user_ids: z.array(z.number()),
});
export type MessageForm = z.infer<typeof messageFormSchema>;

export const createMessageSchema = messageFormSchema.extend({
  user_ids: z.array(z.number()).min(1, 'messages:validation.recipients'),
});

export const EMPTY_MESSAGE: MessageForm = { title: '', content: '', format: 'markdown', user_ids: [] };
