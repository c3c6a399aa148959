import { computeQuota } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import {
  callSurface,
  deliveredValue,
  fundedKey,
  model,
  MONEY_PRICE,
  settledMoney,
  useMoneyGateway,
  type MoneySurface,
} from '../support/money-property.js';
import type { MoneyVendorKind } from '../support/money-property.js';

/** Issue 31 hole 12: a plain answer without usage is billed on its counted output, every choice included. */
/** Enough for every hold in full (n = 100 holds 100 × the uncapped ceiling): the plain pass-through path. */
const BALANCE = 200_000_000;

describe.each(dialects.filter((d) => d === 'sqlite'))('answers without usage on %s', (dialect) => {
  const gw = useMoneyGateway(dialect);

  const cases: { surface: MoneySurface; vendor: MoneyVendorKind; choices: number; words: number }[] = [
    { surface: 'chat', vendor: 'openai', choices: 100, words: 30 },
    { surface: 'messages', vendor: 'anthropic', choices: 1, words: 400 },
    { surface: 'gemini', vendor: 'gemini', choices: 4, words: 200 },
    { surface: 'responses', vendor: 'openai', choices: 1, words: 300 },
  ];

  it.each(cases)(
    '$surface with $choices choice(s) of $words words is charged on what it delivered',
    async ({ surface, vendor, choices, words }) => {
      const { userId, key } = await fundedKey(gw, BALANCE);
      const r = await callSurface(gw, surface, key, {
        model: model(vendor, 'nousage'),
        words,
        stream: false,
        choices,
        cap: surface === 'messages' ? 1_000 : undefined,
      });
      expect(r.status).toBe(200);
      expect(r.outputTokens).toBe(words * choices);
      const money = await settledMoney(gw, userId);
      expect(money.calls).toBe(1);
      // At least the output delivered (the prompt as we count it is never below the vendor's count).
      expect(money.charged).toBeGreaterThanOrEqual(deliveredValue(r));
      expect(money.charged).toBeGreaterThanOrEqual(
        computeQuota(MONEY_PRICE, { promptTokens: 0, completionTokens: words * choices }, 500_000),
      );
      expect(money.balance).toBe(BALANCE - money.charged);
    },
  );
});
