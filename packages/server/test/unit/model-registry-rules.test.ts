import { describe, expect, it } from 'vitest';
import { parseModels } from '../../src/modules/model-registry/catalog.js';
import { ruleCovers, RuleIndex } from '../../src/modules/model-registry/matching.js';
import { entryEndpoints } from '../../src/modules/pricing/registry-meta.js';

const entry = (model_name: string, name_rule: number, id: number) => ({ model_name, name_rule, id });

describe('model registry name rules', () => {
  it('covers by exact, prefix, contains and suffix; an empty pattern or unknown rule covers nothing', () => {
    expect(ruleCovers(0, 'gpt-4o', 'gpt-4o')).toBe(true);
    expect(ruleCovers(0, 'gpt-4o', 'gpt-4o-mini')).toBe(false);
    expect(ruleCovers(1, 'gpt-', 'gpt-4o')).toBe(true);
    expect(ruleCovers(1, 'gpt-', 'chatgpt-4o')).toBe(false);
    expect(ruleCovers(2, 'mini', 'gpt-4o-mini-tts')).toBe(true);
    expect(ruleCovers(3, '-chat', 'deepseek-chat')).toBe(true);
    expect(ruleCovers(3, '-chat', 'deepseek-chat-v2')).toBe(false);
    expect(ruleCovers(1, '', 'anything')).toBe(false);
    expect(ruleCovers(9, 'gpt', 'gpt')).toBe(false);
  });

  it('finds exact before prefix before suffix before contains, oldest first within a kind', () => {
    const index = new RuleIndex([
      entry('4o', 2, 1),
      entry('-mini', 3, 2),
      entry('gpt-4', 1, 3),
      entry('gpt-', 1, 4),
      entry('gpt-4o', 0, 5),
    ]);
    expect(index.find('gpt-4o')?.id).toBe(5);
    expect(index.find('gpt-4o-mini')?.id).toBe(3);
    expect(index.find('o4-mini')?.id).toBe(2);
    expect(index.find('chat-4o')?.id).toBe(1);
    expect(index.find('claude')).toBeUndefined();
  });

  it("reads an entry's endpoints as new-api writes them, and ignores anything else", () => {
    expect(entryEndpoints('{"openai":"/v1/chat/completions","x":{"path":"/v1/x","method":"put"},"bad":3}')).toEqual({
      openai: { path: '/v1/chat/completions', method: 'POST' },
      x: { path: '/v1/x', method: 'PUT' },
    });
    for (const text of ['', '  ', '[1]', 'not json', '{"bad":3}']) expect(entryEndpoints(text)).toBeUndefined();
  });

  it('reads catalog entries leniently: nameless, duplicate and over-long names are left out, fields are cut', () => {
    const models = parseModels(
      JSON.stringify({
        data: [
          { model_name: ' a ', description: 'first', name_rule: 9, tags: 'x'.repeat(300), context_length: 5 },
          { model_name: 'a', description: 'second' },
          { model_name: 'b'.repeat(129) },
          { description: 'no name' },
          'not an object',
        ],
      }),
    );
    expect([...models.keys()]).toEqual(['a']);
    expect(models.get('a')).toMatchObject({ description: 'first', name_rule: 0, extras: { context_length: 5 } });
    expect(models.get('a')!.tags).toHaveLength(255);
  });
});
