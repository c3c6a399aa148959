import type { ProviderCatalog } from '../../core/providers.js';
import { ErrorCode } from '@tollway/shared';
import { coded } from '../../lib/errors.js';
import { checkKeyFormat } from './key-format.js';
import { listOpenAIModels } from './openai/models.js';
import { descriptorFor } from './registry.js';

/** Balances are rounded to six decimals. */
const BALANCE_SCALE = 1e6;

/** Channel management's view of the registry (AppContext.providers). */
export const providerCatalog: ProviderCatalog = {
  jsonKeys: (type) => descriptorFor(type)?.jsonKeys === true,
  checkKey(type, key) {
    const check = descriptorFor(type)?.checkKey;
    if (check) check(key);
    else checkKeyFormat(type, key);
  },
  checkOther: (type, other) => descriptorFor(type)?.checkOther?.(other),
  listModels: (q, log) => (descriptorFor(q.type)?.listModels ?? listOpenAIModels)(q, log),
  hasBalance: (type) => descriptorFor(type)?.balances?.[type] !== undefined,
  async queryBalance(q) {
    const query = descriptorFor(q.type)?.balances?.[q.type];
    if (!query) throw coded(ErrorCode.BalanceUnsupported, 'balance query not supported for this channel type');
    const balance = await query(q);
    if (!Number.isFinite(balance))
      throw coded(ErrorCode.UpstreamBalanceMissing, 'the upstream balance answer has no balance', undefined, 502);
    return Math.round(balance * BALANCE_SCALE) / BALANCE_SCALE;
  },
};
