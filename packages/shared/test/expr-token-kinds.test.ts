import { describe, expect, it } from 'vitest';
import { cachedBillingExpr, exprTokenVars, type Usage } from '../src/index.js';

/**
 * new-api's opt-in token variables: a kind the expression names is priced apart and leaves the count it sits in
 * (img and ai leave p, img_o and ao leave c, cc1h leaves cc); a kind it does not name stays in p or c.
 */
const usage: Usage = {
  promptTokens: 1000,
  completionTokens: 500,
  cachedTokens: 100,
  cacheCreationTokens: 60,
  kinds: { cacheWrite1h: 40, imageIn: 200, audioIn: 50, imageOut: 300, audioOut: 100 },
};
const vars = (text: string) => exprTokenVars(cachedBillingExpr(text), usage, 'openai');

describe('expression token kinds', () => {
  it('keeps every kind inside p and c when the expression names none of them', () => {
    expect(vars('p * 3 + c * 15')).toMatchObject({
      p: 1000,
      c: 500,
      len: 1000,
      img: 0,
      ai: 0,
      img_o: 0,
      ao: 0,
      cc1h: 0,
    });
  });

  it('takes image and audio input out of p, image and audio output out of c, when named', () => {
    expect(vars('p * 2 + c * 8 + img * 2.5 + ai * 3.8 + img_o * 40 + ao * 15')).toMatchObject({
      p: 1000 - 200 - 50,
      c: 500 - 300 - 100,
      img: 200,
      ai: 50,
      img_o: 300,
      ao: 100,
      len: 1000,
    });
    expect(vars('p * 3 + c * 15 + ao * 50')).toMatchObject({ p: 1000, c: 400, ao: 100, img: 0 });
  });

  it('splits 1-hour cache writes out of cc, or out of p when only cc1h is named', () => {
    expect(vars('p + c + cr * 0.3 + cc * 3.75 + cc1h * 6')).toMatchObject({ p: 1000 - 100 - 60, cc: 20, cc1h: 40 });
    expect(vars('p + c + cc * 3.75')).toMatchObject({ p: 1000 - 60, cc: 60, cc1h: 0 });
    expect(vars('p + c + cc1h * 6')).toMatchObject({ p: 1000 - 40, cc1h: 40 });
  });

  it('never lets a reported part exceed its count', () => {
    const odd: Usage = {
      promptTokens: 10,
      completionTokens: 5,
      cacheCreationTokens: 3,
      kinds: { cacheWrite1h: 9, audioOut: 50 },
    };
    expect(exprTokenVars(cachedBillingExpr('p + c + cc1h + ao'), odd, 'openai')).toMatchObject({
      c: 0,
      cc1h: 3,
      ao: 50,
    });
  });
});
