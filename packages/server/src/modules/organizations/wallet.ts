import { Role, UserStatus } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { redemptionsOf } from '../redemption/service.js';
import type { OrgAccess } from './access.js';
import { walletUsername } from './store.js';

/**
 * Credits the organization's shared wallet with a redemption code: the code is used by the wallet account (a gift
 * code once per organization), exactly as a person redeems one, and the relay's balances follow at once.
 */
export async function redeemForOrg(ctx: AppContext, access: OrgAccess, key: string): Promise<{ quota: number }> {
  const wallet = {
    id: Number(access.org.wallet_user_id),
    username: walletUsername(access.org.id),
    role: Role.Common,
    status: UserStatus.Enabled,
    group: '',
  };
  const { quota } = await redemptionsOf(ctx).redeem(wallet, key);
  return { quota };
}
