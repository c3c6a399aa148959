import { createTokenBody, TOKEN_NAME_MAX, TokenStatus, updateTokenBody } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { nowSeconds } from '../../src/lib/time.js';
import {
  CANNOT_ENABLE_EXHAUSTED,
  CANNOT_ENABLE_EXPIRED,
  TOKEN_NOT_FOUND,
  tokensOf,
} from '../../src/modules/tokens/service.js';
import { useServiceContext } from '../support/service-context.js';

const t = useServiceContext();
const tokens = () => tokensOf(t.ctx);
const create = (input: Record<string, unknown>) => createTokenBody.parse({ name: 'tok', ...input });
const update = (input: Record<string, unknown>) => updateTokenBody.parse(input);

describe('token rules', () => {
  it('makes count tokens: the first keeps the name, the others get a random suffix; a limited one keeps its quota', async () => {
    const user = await t.user();
    const made = await tokens().create(user, create({ name: 'batch', count: 3, remain_quota: 1234 }));
    expect(made.map((x) => x.name)[0]).toBe('batch');
    for (const x of made.slice(1)) expect(x.name).toMatch(/^batch-[A-Za-z0-9]{6}$/);
    expect(new Set(made.map((x) => x.key)).size).toBe(3);
    expect(made.every((x) => x.remain_quota === 1234 && !x.unlimited_quota)).toBe(true);
  });

  it('refuses a name longer than the limit or blank, before the service', () => {
    expect(createTokenBody.safeParse({ name: 'x'.repeat(TOKEN_NAME_MAX + 1) }).success).toBe(false);
    expect(createTokenBody.safeParse({ name: '   ' }).success).toBe(false);
    expect(createTokenBody.safeParse({ name: 'x'.repeat(TOKEN_NAME_MAX) }).success).toBe(true);
  });

  it('keeps an unlimited token unlimited whatever its remaining quota', async () => {
    const user = await t.user();
    const [tok] = await tokens().create(user, create({ unlimited_quota: true, remain_quota: 0 }));
    expect(tok!.unlimited_quota).toBe(true);
    expect(tok!.status).toBe(TokenStatus.Enabled);
  });

  it('refuses an expiry in the past, allows -1 (never) and a future one', async () => {
    const user = await t.user();
    await expect(tokens().create(user, create({ expired_time: nowSeconds() - 60 }))).rejects.toThrow(
      /expiry time is in the past/,
    );
    await expect(tokens().create(user, create({ expired_time: -1 }))).resolves.toHaveLength(1);
    await expect(tokens().create(user, create({ expired_time: nowSeconds() + 3600 }))).resolves.toHaveLength(1);
  });

  it('allows only usable groups: the listed ones and the user own group', async () => {
    const user = await t.user({ group: 'team' });
    await expect(tokens().create(user, create({ group: 'secret' }))).rejects.toThrow(
      /group: "secret" is not available to you/,
    );
    await expect(tokens().create(user, create({ group: 'team' }))).resolves.toHaveLength(1);
    await expect(tokens().create(user, create({ group: 'vip' }))).resolves.toHaveLength(1);
    const [tok] = await tokens().create(user, create({}));
    await expect(tokens().update(user, update({ id: tok!.id, group: 'secret' }), false)).rejects.toThrow(
      /not available/,
    );
  });

  it('checks the IP allow-list line by line', async () => {
    const user = await t.user();
    await expect(tokens().create(user, create({ allow_ips: '10.0.0.1\nnot-an-ip' }))).rejects.toThrow(
      /allow_ips: "not-an-ip"/,
    );
    await expect(tokens().create(user, create({ allow_ips: '10.0.0.1\n192.168.0.0/16' }))).resolves.toHaveLength(1);
  });

  it('does not enable an expired token unless the same update gives it a future expiry', async () => {
    const user = await t.user();
    const [tok] = await tokens().create(user, create({}));
    await tokens().update(
      user,
      update({ id: tok!.id, expired_time: nowSeconds() - 10, status: TokenStatus.Disabled }),
      false,
    );
    await expect(tokens().update(user, update({ id: tok!.id, status: TokenStatus.Enabled }), true)).rejects.toThrow(
      CANNOT_ENABLE_EXPIRED,
    );
    const fixed = await tokens().update(
      user,
      update({ id: tok!.id, status: TokenStatus.Enabled, expired_time: -1 }),
      false,
    );
    expect(fixed.status).toBe(TokenStatus.Enabled);
  });

  it('does not enable an exhausted token unless the same update gives it quota or makes it unlimited', async () => {
    const user = await t.user();
    const [tok] = await tokens().create(user, create({ remain_quota: 0 }));
    await tokens().update(user, update({ id: tok!.id, status: TokenStatus.Disabled }), true);
    await expect(tokens().update(user, update({ id: tok!.id, status: TokenStatus.Enabled }), true)).rejects.toThrow(
      CANNOT_ENABLE_EXHAUSTED,
    );
    const fixed = await tokens().update(
      user,
      update({ id: tok!.id, status: TokenStatus.Enabled, unlimited_quota: true }),
      false,
    );
    expect(fixed.status).toBe(TokenStatus.Enabled);
  });

  it('needs a status of 1 or 2 for a status-only update; a full update sending 3 or 4 leaves the status', async () => {
    const user = await t.user();
    const [tok] = await tokens().create(user, create({}));
    await expect(tokens().update(user, update({ id: tok!.id }), true)).rejects.toThrow('status is required');
    await expect(tokens().update(user, update({ id: tok!.id, status: TokenStatus.Expired }), true)).rejects.toThrow(
      /status must be 1/,
    );
    const kept = await tokens().update(
      user,
      update({ id: tok!.id, status: TokenStatus.Exhausted, name: 'renamed' }),
      false,
    );
    expect(kept).toMatchObject({ name: 'renamed', status: TokenStatus.Enabled });
  });

  it('scopes every change to the owner and deletes softly', async () => {
    const owner = await t.user();
    const other = await t.user();
    const [tok] = await tokens().create(owner, create({}));
    await expect(tokens().get(other.id, tok!.id)).rejects.toThrow(TOKEN_NOT_FOUND);
    await expect(tokens().update(other, update({ id: tok!.id, name: 'mine' }), false)).rejects.toThrow(TOKEN_NOT_FOUND);
    await expect(tokens().remove(other.id, tok!.id)).rejects.toThrow(TOKEN_NOT_FOUND);
    await tokens().remove(owner.id, tok!.id);
    await expect(tokens().get(owner.id, tok!.id)).rejects.toThrow(TOKEN_NOT_FOUND);
    const row = await t.ctx.db.kysely
      .selectFrom('tokens')
      .select('deleted_at')
      .where('id', '=', tok!.id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
  });
});
