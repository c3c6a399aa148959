import { createRedemptionBody, RedemptionStatus, updateRedemptionBody } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { nowSeconds } from '../../src/lib/time.js';
import { MSG, redemptionsOf } from '../../src/modules/redemption/service.js';
import { useServiceContext } from '../support/service-context.js';

const t = useServiceContext();
const codes = () => redemptionsOf(t.ctx);
const create = (input: Record<string, unknown>) => createRedemptionBody.parse({ name: 'code', quota: 1000, ...input });
const update = (input: Record<string, unknown>) => updateRedemptionBody.parse(input);
let keySeq = 0;
/** One code with a unique custom key, created by an administrator; returns its key and id. */
async function oneCode(input: Record<string, unknown> = {}): Promise<{ key: string; id: number }> {
  const admin = await t.user({ role: 10 });
  const key = `svc-${process.pid}-${++keySeq}`;
  await codes().create(admin, create({ key, ...input }));
  const found = await codes().store.findByKey(key);
  return { key, id: found!.id };
}
const quotaOf = async (id: number) => Number((await t.ctx.users.get(id)).quota);

describe('redemption rules', () => {
  it('credits a normal code once: the second redeem is refused and the code is used', async () => {
    const { key, id } = await oneCode({ quota: 700 });
    const a = await t.user({ quota: 0 });
    const b = await t.user({ quota: 0 });
    await expect(codes().redeem(a, key)).resolves.toEqual({ quota: 700, isGift: false });
    await expect(codes().redeem(b, key)).rejects.toThrow(MSG.used);
    await expect(codes().redeem(a, key)).rejects.toThrow(MSG.used);
    expect(await quotaOf(a.id)).toBe(700);
    expect(await quotaOf(b.id)).toBe(0);
    expect((await codes().get(id)).status).toBe(RedemptionStatus.Used);
  });

  it('refuses a blank or unknown key', async () => {
    const user = await t.user();
    await expect(codes().redeem(user, '  ')).rejects.toThrow(MSG.empty);
    await expect(codes().redeem(user, 'no-such-key')).rejects.toThrow(MSG.invalid);
  });

  it('refuses a disabled code, and accepts it again once enabled', async () => {
    const { key, id } = await oneCode();
    const user = await t.user();
    await codes().update(update({ id, status: RedemptionStatus.Disabled }), true);
    await expect(codes().redeem(user, key)).rejects.toThrow(MSG.disabled);
    await codes().update(update({ id, status: RedemptionStatus.Unused }), true);
    await expect(codes().redeem(user, key)).resolves.toMatchObject({ quota: 1000 });
  });

  it('refuses an expired code and one not valid yet', async () => {
    const now = nowSeconds();
    const expired = await oneCode();
    await codes().update(update({ id: expired.id, valid_until: now - 1 }), false);
    const early = await oneCode({ valid_from: now + 3600 });
    const user = await t.user();
    await expect(codes().redeem(user, expired.key)).rejects.toThrow(MSG.expired);
    await expect(codes().redeem(user, early.key)).rejects.toThrow(/not valid yet/);
  });

  it('credits a gift code once per user up to max_uses', async () => {
    const { key, id } = await oneCode({ is_gift: true, max_uses: 2, quota: 50 });
    const [a, b, c] = [await t.user(), await t.user(), await t.user()];
    await expect(codes().redeem(a, key)).resolves.toEqual({ quota: 50, isGift: true });
    await expect(codes().redeem(a, key)).rejects.toThrow(MSG.usedByYou);
    await codes().redeem(b, key);
    await expect(codes().redeem(c, key)).rejects.toThrow(MSG.usedUp);
    expect(await codes().get(id)).toMatchObject({ used_count: 2, status: RedemptionStatus.Unused });
  });

  it('creates with a custom key only one code, refuses a taken key and a window that ends before it starts', async () => {
    const admin = await t.user({ role: 10 });
    await expect(codes().create(admin, create({ key: 'one-only', count: 2 }))).rejects.toThrow(MSG.keyOne);
    await codes().create(admin, create({ key: `taken-${process.pid}` }));
    await expect(codes().create(admin, create({ key: `taken-${process.pid}` }))).rejects.toThrow(MSG.keyTaken);
    await expect(codes().create(admin, create({ valid_from: 2000, valid_until: 1000 }))).rejects.toThrow(MSG.window);
    expect(await codes().create(admin, create({ count: 5 }))).toHaveLength(5);
  });

  it('edits only unused codes; never enables a used one; max_uses not below the uses', async () => {
    const normal = await oneCode();
    await codes().redeem(await t.user(), normal.key);
    await expect(codes().update(update({ id: normal.id, name: 'renamed' }), false)).rejects.toThrow(MSG.editUnused);
    await expect(codes().update(update({ id: normal.id, status: RedemptionStatus.Unused }), true)).rejects.toThrow(
      MSG.enableUsed,
    );
    const gift = await oneCode({ is_gift: true, max_uses: 5 });
    await codes().redeem(await t.user(), gift.key);
    await codes().redeem(await t.user(), gift.key);
    await expect(codes().update(update({ id: gift.id, max_uses: 1 }), false)).rejects.toThrow(MSG.maxBelowUses);
    await expect(codes().update(update({ id: gift.id, is_gift: false }), false)).rejects.toThrow(MSG.giftUsed);
    await expect(codes().update(update({ id: gift.id, max_uses: 2 }), false)).resolves.toMatchObject({ max_uses: 2 });
  });
});
