import type { Identified } from './authenticate.js';
import type { RelayContext } from '../pipeline/services.js';
import type { ServedModel } from '../surfaces/model-shapes.js';
import { tokensOf } from '../../modules/tokens/service.js';

/** OpenAI reports billing usage in cents. */
const CENTS_PER_UNIT = 100;

/**
 * What the token-authenticated info calls answer: the models a token may use and OpenAI-style billing. Built once
 * by installInfoRoutes (relay services live on ctx.relay or with the routes that use them, never per call).
 */
export class InfoService {
  constructor(private readonly ctx: RelayContext) {}

  /** The models the token's group is served, within the token's model limits. */
  servedModels({ auth, group }: Identified): ServedModel[] {
    const models = this.ctx.channelCache
      .modelsForGroup(group)
      .filter((m) => !auth.modelLimits || auth.modelLimits.has(m));
    const created = Math.floor(this.ctx.startedAt / 1000);
    return models.map((id) => ({ id, created }));
  }

  /** The balance the token can spend (its owner's for an unlimited token), in USD, as every limit. */
  async subscription({ auth }: Identified) {
    const perUnit = this.ctx.options.num('QuotaPerUnit');
    const ledger = this.ctx.relay.ledger;
    const balance = auth.unlimited
      ? await ledger.available('users', auth.userId)
      : await ledger.available('tokens', auth.tokenId);
    const usd = Math.max(0, balance ?? 0) / perUnit;
    return {
      object: 'billing_subscription',
      has_payment_method: true,
      soft_limit_usd: usd,
      hard_limit_usd: usd,
      system_hard_limit_usd: usd,
      access_until: auth.expiredTime === -1 ? 0 : auth.expiredTime,
    };
  }

  /** The quota the token has used, in cents. */
  async usage({ auth }: Identified) {
    const used = await tokensOf(this.ctx).store.usedQuota(auth.tokenId);
    return { object: 'list', total_usage: (used / this.ctx.options.num('QuotaPerUnit')) * CENTS_PER_UNIT };
  }
}
