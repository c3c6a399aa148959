import { describe, expect, it } from 'vitest';
import { parseLogOther, type LogOther } from '../src/index.js';

describe('log other', () => {
  it('reads what settle writes', () => {
    const written: LogOther = {
      model_ratio: 2.5,
      model_price: -1,
      frt: 120,
      is_model_mapped: true,
      upstream_model_name: 'gpt-x',
      admin_info: { use_channel: [3, 4] },
      input_content: 'hi',
    };
    expect(parseLogOther(JSON.stringify(written))).toEqual(written);
  });

  it('drops a key of another type and keeps the rest', () => {
    expect(parseLogOther(JSON.stringify({ model_ratio: '2', frt: 7 }))).toEqual({ frt: 7 });
  });

  it('answers {} for empty text, bad JSON and non-objects', () => {
    for (const text of ['', '{', '[1]', '"x"', 'null']) expect(parseLogOther(text)).toEqual({});
  });
});
