import { z } from 'zod';
import { pageQuery } from './common.js';

/** Admin messages delivered to users' inboxes. */
export const MESSAGE_FORMATS = ['markdown', 'html'] as const;
export const MESSAGE_TITLE_MAX = 200;
export const MESSAGE_CONTENT_MAX = 65_535;
/** Most recipients one message can have. */
export const MESSAGE_RECIPIENTS_MAX = 10_000;

const title = z
  .string()
  .trim()
  .min(1, 'title is required')
  .max(MESSAGE_TITLE_MAX, `title is at most ${MESSAGE_TITLE_MAX} characters`);
const content = z
  .string()
  .trim()
  .min(1, 'content is required')
  .max(MESSAGE_CONTENT_MAX, `content is at most ${MESSAGE_CONTENT_MAX} characters`);
const format = z.enum(MESSAGE_FORMATS, { message: 'format must be markdown or html' });

export const createMessageBody = z.object({
  title,
  content,
  format: format.default('markdown'),
  user_ids: z
    .array(z.number().int().positive())
    .min(1, 'at least one recipient is required')
    .max(MESSAGE_RECIPIENTS_MAX, `at most ${MESSAGE_RECIPIENTS_MAX} recipients`),
});
export type CreateMessageBody = z.infer<typeof createMessageBody>;

export const updateMessageBody = z.object({ title, content, format });
export type UpdateMessageBody = z.infer<typeof updateMessageBody>;

/** Search: keyword in title or content; the date range (ISO strings) applies only when both ends are given. */
export const messageSearchQuery = pageQuery.extend({
  keyword: z.string().trim().max(200).optional(),
  start_date: z.string().max(64).optional(),
  end_date: z.string().max(64).optional(),
});

/** A message as its recipient sees it. */
export const inboxMessage = z.object({
  id: z.number().int(),
  title: z.string(),
  content: z.string(),
  format: z.enum(MESSAGE_FORMATS),
  created_at: z.number().int(),
  read_at: z.number().int().nullable(),
  is_read: z.boolean(),
});
export type InboxMessage = z.infer<typeof inboxMessage>;

/** A message in the administrators' list, with its delivery counts. */
export const adminMessage = z.object({
  id: z.number().int(),
  title: z.string(),
  content: z.string(),
  format: z.enum(MESSAGE_FORMATS),
  created_at: z.number().int(),
  /** The administrator who wrote it. */
  created_by: z.number().int(),
  /** Whether the viewer may edit or delete it: its author, or root. */
  editable: z.boolean(),
  stats: z.object({ total_recipients: z.number().int(), read_count: z.number().int() }),
});
export type AdminMessage = z.infer<typeof adminMessage>;

export const messageRecipient = z.object({
  user_id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  read_at: z.number().int().nullable(),
});
export type MessageRecipient = z.infer<typeof messageRecipient>;
