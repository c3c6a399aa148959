import type { AdminMessage, InboxMessage, MessageRecipient } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

type Page<T> = { items: T[]; page: number; total: number };

describe.each(dialects)('messages: admin sends, users read their inbox, on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, otherAdmin: Client, alice: Client, bob: Client;
  useApp(
    dialect,
    { admins: ['msg-admin', 'msg-admin2'], users: ['alice', 'bob'] },
    (app) =>
      ({
        t,
        root,
        admins: [admin, otherAdmin],
        users: [alice, bob],
      } = app),
  );

  const send = (c: Client, body: Record<string, unknown>) =>
    c.call<{ id: number }>('POST', '/api/admin/messages', body);
  const unread = async (c: Client) =>
    (await c.call<{ unread_count: number }>('GET', '/api/user/messages/unread_count')).body.data!.unread_count;

  it('validates a new message: title, content, at least one existing recipient, format', async () => {
    expect((await send(admin, { title: ' ', content: 'x', user_ids: [alice.userId] })).body).toMatchObject({
      success: false,
      message: expect.stringContaining('title is required'),
    });
    expect((await send(admin, { title: 'x', content: '', user_ids: [alice.userId] })).body).toMatchObject({
      success: false,
      message: expect.stringContaining('content is required'),
    });
    expect((await send(admin, { title: 'x', content: 'y', user_ids: [] })).body).toMatchObject({
      success: false,
      message: expect.stringContaining('at least one recipient'),
    });
    expect(
      (await send(admin, { title: 'x', content: 'y', format: 'pdf', user_ids: [alice.userId] })).body,
    ).toMatchObject({
      success: false,
      message: expect.stringContaining('markdown or html'),
    });
    expect((await send(admin, { title: 'x', content: 'y', user_ids: [alice.userId, 99999] })).body).toMatchObject({
      success: false,
      message: 'user does not exist: 99999',
    });
    expect(await t.runtime.ctx.db.kysely.selectFrom('messages').select('id').execute()).toHaveLength(0);
  });

  it('only administrators manage messages; users reach only their own inbox', async () => {
    expect((await send(alice, { title: 'x', content: 'y', user_ids: [bob.userId] })).status).toBe(403);
    expect((await alice.call('GET', '/api/admin/messages')).status).toBe(403);
    const { id } = (await send(admin, { title: 'Only Bob', content: 'secret', user_ids: [bob.userId] })).body.data!;
    const other = await alice.call('GET', `/api/user/messages/${id}`);
    expect(other.body).toMatchObject({ success: false, message: 'message does not exist' });
    expect((await alice.call('PUT', `/api/user/messages/${id}/read`)).body.success).toBe(false);
    expect((await alice.call<Page<InboxMessage>>('GET', '/api/user/messages')).body.data!.total).toBe(0);
    await root.call('DELETE', `/api/admin/messages/${id}`);
  });

  it('delivers to each recipient once; unread count, open marks read, counts for admins', async () => {
    const res = await send(admin, {
      title: '  Maintenance  ',
      content: '**Tonight** 22:00',
      format: 'markdown',
      user_ids: [alice.userId, bob.userId, alice.userId],
    });
    expect(res.body).toMatchObject({ success: true, message: 'message sent' });
    const id = res.body.data!.id;
    expect(await unread(alice)).toBe(1);
    expect(await unread(bob)).toBe(1);
    const inbox = (await alice.call<Page<InboxMessage>>('GET', '/api/user/messages?p=1&page_size=10')).body.data!;
    expect(inbox).toMatchObject({ page: 1, total: 1 });
    expect(inbox.items[0]).toMatchObject({
      id,
      title: 'Maintenance',
      content: '**Tonight** 22:00',
      format: 'markdown',
      is_read: false,
      read_at: null,
    });

    const opened = (await alice.call<InboxMessage>('GET', `/api/user/messages/${id}`)).body.data!;
    expect(opened.is_read).toBe(true);
    expect(opened.read_at).toBeGreaterThan(1_700_000_000);
    expect(await unread(alice)).toBe(0);
    // Opening again keeps the first read time.
    expect((await alice.call<InboxMessage>('GET', `/api/user/messages/${id}`)).body.data!.read_at).toBe(opened.read_at);
    expect((await bob.call('PUT', `/api/user/messages/${id}/read`)).body.success).toBe(true);
    expect(await unread(bob)).toBe(0);

    const got = (await admin.call<AdminMessage>('GET', `/api/admin/messages/${id}`)).body.data!;
    expect(got.stats).toEqual({ total_recipients: 2, read_count: 2 });
    const recips = (
      await admin.call<Page<MessageRecipient>>('GET', `/api/admin/messages/${id}/recipients?p=1&page_size=10`)
    ).body.data!;
    expect(recips.total).toBe(2);
    expect(recips.items.map((r) => r.username).sort()).toEqual(['alice', 'bob']);
    expect(recips.items.every((r) => r.read_at !== null)).toBe(true);
  });

  it('lists and searches by keyword and by date range (both ends only), newest first', async () => {
    await send(admin, { title: 'Price change', content: 'gpt-4o cheaper', user_ids: [alice.userId] });
    await send(admin, { title: 'Welcome', content: '<b>hello</b>', format: 'html', user_ids: [alice.userId] });
    const all = (await admin.call<Page<AdminMessage>>('GET', '/api/admin/messages?p=1&page_size=2')).body.data!;
    expect(all.total).toBe(3);
    expect(all.items.map((m) => m.title)).toEqual(['Welcome', 'Price change']);
    const byWord = (await admin.call<Page<AdminMessage>>('GET', '/api/admin/messages/search?keyword=%20cheaper%20'))
      .body.data!;
    expect(byWord.items.map((m) => m.title)).toEqual(['Price change']);
    const past = encodeURIComponent('2000-01-01T00:00:00Z');
    const pastEnd = encodeURIComponent('2000-12-31T00:00:00Z');
    expect(
      (await admin.call<Page<AdminMessage>>('GET', `/api/admin/messages/search?start_date=${past}&end_date=${pastEnd}`))
        .body.data!.total,
    ).toBe(0);
    // One end alone does not filter.
    expect(
      (await admin.call<Page<AdminMessage>>('GET', `/api/admin/messages/search?start_date=${past}`)).body.data!.total,
    ).toBe(3);
    const now = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    expect(
      (await admin.call<Page<AdminMessage>>('GET', `/api/admin/messages/search?start_date=${past}&end_date=${now}`))
        .body.data!.total,
    ).toBe(3);
    expect(
      (await admin.call('GET', '/api/admin/messages/search?start_date=yesterday&end_date=today')).body,
    ).toMatchObject({
      success: false,
      message: 'start_date is not a valid date',
    });
  });

  it('edits title, content and format; deleting removes the message and its receipts', async () => {
    const { id } = (await send(admin, { title: 'Draft', content: 'v1', user_ids: [bob.userId] })).body.data!;
    expect(
      (await admin.call('PUT', `/api/admin/messages/${id}`, { title: ' Final ', content: ' v2 ', format: 'html' })).body
        .success,
    ).toBe(true);
    expect((await bob.call<InboxMessage>('GET', `/api/user/messages/${id}`)).body.data).toMatchObject({
      title: 'Final',
      content: 'v2',
      format: 'html',
    });
    expect(
      (await admin.call('PUT', '/api/admin/messages/424242', { title: 'a', content: 'b', format: 'html' })).body,
    ).toMatchObject({
      success: false,
      message: 'message does not exist',
    });
    expect((await admin.call('DELETE', `/api/admin/messages/${id}`)).body.success).toBe(true);
    expect((await bob.call('GET', `/api/user/messages/${id}`)).body.success).toBe(false);
    const receipts = await t.runtime.ctx.db.kysely
      .selectFrom('message_recipients')
      .select('id')
      .where('message_id', '=', id)
      .execute();
    expect(receipts).toHaveLength(0);
    expect((await admin.call('DELETE', `/api/admin/messages/${id}`)).body).toMatchObject({
      success: false,
      message: 'message does not exist',
    });
  });

  it('only the author or root edits or deletes a message: an admin cannot change what root or another admin wrote', async () => {
    const edit = { title: 'Hijacked', content: '<img src=x onerror="window.__pwned=1">', format: 'html' };
    const fromRoot = (await send(root, { title: 'From root', content: 'root text', user_ids: [alice.userId] })).body
      .data!.id;
    const fromOther = (
      await send(otherAdmin, { title: 'From admin 2', content: 'admin 2 text', user_ids: [alice.userId] })
    ).body.data!.id;
    const own = (await send(admin, { title: 'Own', content: 'own text', user_ids: [alice.userId] })).body.data!.id;

    for (const id of [fromRoot, fromOther]) {
      const put = await admin.call('PUT', `/api/admin/messages/${id}`, edit);
      expectRefused(put);
      expect(put.body).toMatchObject({ success: false, message: 'only the author of a message or root may change it' });
      const del = await admin.call('DELETE', `/api/admin/messages/${id}`);
      expectRefused(del);
      expect(del.body.success).toBe(false);
    }
    expect((await alice.call<InboxMessage>('GET', `/api/user/messages/${fromRoot}`)).body.data).toMatchObject({
      title: 'From root',
      content: 'root text',
      format: 'markdown',
    });
    expect((await alice.call<InboxMessage>('GET', `/api/user/messages/${fromOther}`)).body.data).toMatchObject({
      title: 'From admin 2',
      content: 'admin 2 text',
    });

    // Each administrator sees which messages are theirs to change; root may change every one.
    const editable = async (c: Client) =>
      Object.fromEntries(
        (await c.call<Page<AdminMessage>>('GET', '/api/admin/messages?p=1&page_size=50')).body
          .data!.items.filter((m) => [fromRoot, fromOther, own].includes(m.id))
          .map((m) => [m.id, m.editable]),
      );
    expect(await editable(admin)).toEqual({ [fromRoot]: false, [fromOther]: false, [own]: true });
    expect(await editable(otherAdmin)).toEqual({ [fromRoot]: false, [fromOther]: true, [own]: false });
    expect(await editable(root)).toEqual({ [fromRoot]: true, [fromOther]: true, [own]: true });
    expect((await admin.call<AdminMessage>('GET', `/api/admin/messages/${fromRoot}`)).body.data).toMatchObject({
      created_by: root.userId,
      editable: false,
    });

    expect(
      (
        await admin.call('PUT', `/api/admin/messages/${own}`, {
          title: 'Own v2',
          content: 'own text 2',
          format: 'markdown',
        })
      ).body.success,
    ).toBe(true);
    expect(
      (
        await otherAdmin.call('PUT', `/api/admin/messages/${fromOther}`, {
          title: 'From admin 2 v2',
          content: 'x',
          format: 'markdown',
        })
      ).body.success,
    ).toBe(true);
    expect(
      (
        await root.call('PUT', `/api/admin/messages/${own}`, {
          title: 'Fixed by root',
          content: 'y',
          format: 'markdown',
        })
      ).body.success,
    ).toBe(true);
    expect((await alice.call<InboxMessage>('GET', `/api/user/messages/${own}`)).body.data).toMatchObject({
      title: 'Fixed by root',
      content: 'y',
    });
    expect((await otherAdmin.call('DELETE', `/api/admin/messages/${fromOther}`)).body.success).toBe(true);
    expect((await root.call('DELETE', `/api/admin/messages/${own}`)).body.success).toBe(true);
    expect((await root.call('DELETE', `/api/admin/messages/${fromRoot}`)).body.success).toBe(true);
  });
});
