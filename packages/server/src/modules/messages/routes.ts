import {
  adminMessage,
  createMessageBody,
  idParam,
  inboxMessage,
  messageRecipient,
  messageSearchQuery,
  paged,
  pageQuery,
  updateMessageBody,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { messagesOf } from './service.js';

/** Inbox (every user, own messages only) and message management (administrators). */
export function messageRoutes(r: Router): void {
  const tags = ['messages'];
  r.add({
    method: 'GET',
    url: '/api/user/messages',
    level: 'user',
    summary: 'Own inbox, newest first',
    tags,
    query: pageQuery,
    response: paged(inboxMessage),
    handler: ({ ctx, user, query }) => messagesOf(ctx).inbox(user!.id, query),
  });
  r.add({
    method: 'GET',
    url: '/api/user/messages/unread_count',
    level: 'user',
    summary: 'Number of unread messages in the own inbox',
    tags,
    response: z.object({ unread_count: z.number().int() }),
    handler: ({ ctx, user }) => messagesOf(ctx).unreadCount(user!.id),
  });
  r.add({
    method: 'GET',
    url: '/api/user/messages/:id',
    level: 'user',
    summary: 'One message of the own inbox; opening it marks it read',
    tags,
    params: idParam,
    response: inboxMessage,
    handler: ({ ctx, user, params }) => messagesOf(ctx).open(user!.id, params.id),
  });
  r.add({
    method: 'PUT',
    url: '/api/user/messages/:id/read',
    level: 'user',
    summary: 'Mark a message of the own inbox read',
    tags,
    params: idParam,
    handler: async ({ ctx, user, params }) => {
      await messagesOf(ctx).markRead(user!.id, params.id);
      return undefined;
    },
  });

  r.add({
    method: 'GET',
    url: '/api/admin/messages',
    level: 'admin',
    summary: 'All messages with recipient and read counts, newest first',
    tags,
    query: pageQuery,
    response: paged(adminMessage),
    handler: ({ ctx, user, query }) => messagesOf(ctx).list(user!, query),
  });
  r.add({
    method: 'GET',
    url: '/api/admin/messages/search',
    level: 'admin',
    summary:
      'Messages by keyword (title or content) and creation date range (ISO start_date and end_date, both or neither)',
    tags,
    query: messageSearchQuery,
    response: paged(adminMessage),
    handler: ({ ctx, user, query }) => messagesOf(ctx).list(user!, query),
  });
  r.add({
    method: 'GET',
    url: '/api/admin/messages/:id',
    level: 'admin',
    summary: 'One message with its counts',
    tags,
    params: idParam,
    response: adminMessage,
    handler: ({ ctx, user, params }) => messagesOf(ctx).get(user!, params.id),
  });
  r.add({
    method: 'GET',
    url: '/api/admin/messages/:id/recipients',
    level: 'admin',
    summary: 'Recipients of a message and when each read it',
    tags,
    params: idParam,
    query: pageQuery,
    response: paged(messageRecipient),
    handler: ({ ctx, params, query }) => messagesOf(ctx).recipients(params.id, query),
  });
  r.add({
    method: 'POST',
    url: '/api/admin/messages',
    level: 'admin',
    summary: 'Send a message (title, content, format markdown|html) to the given users',
    tags,
    body: createMessageBody,
    response: z.object({ id: z.number().int() }),
    successMessage: 'message sent',
    handler: ({ ctx, user, body }) => messagesOf(ctx).create(user!.id, body),
  });
  r.add({
    method: 'PUT',
    url: '/api/admin/messages/:id',
    level: 'admin',
    summary: 'Edit a message (title, content, format); only its author or root',
    tags,
    params: idParam,
    body: updateMessageBody,
    successMessage: 'message updated',
    handler: async ({ ctx, user, params, body }) => {
      await messagesOf(ctx).update(user!, params.id, body);
      return undefined;
    },
  });
  r.add({
    method: 'DELETE',
    url: '/api/admin/messages/:id',
    level: 'admin',
    summary: 'Delete a message and every receipt of it; only its author or root',
    tags,
    params: idParam,
    successMessage: 'message deleted',
    handler: async ({ ctx, user, params }) => {
      await messagesOf(ctx).remove(user!, params.id);
      return undefined;
    },
  });
}
