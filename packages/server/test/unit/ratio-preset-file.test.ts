import { describe, expect, it } from 'vitest';
import { presetFiles } from '../../src/modules/ratio-preset/service.js';
import { MAX_MODELS, parseRatioFile, PresetFileError } from '../../src/modules/ratio-preset/validate.js';

describe('preset ratio files', () => {
  it('names a prompt and a completion file per source, and only a completion file for legacy', () => {
    expect(presetFiles('https://assets.example/r', 'mixed')).toEqual({
      prompt: 'https://assets.example/r/mixed/prompt.json',
      completion: 'https://assets.example/r/mixed/completion.json',
    });
    expect(presetFiles('https://assets.example/r', 'legacy')).toEqual({
      completion: 'https://assets.example/r/completion.json',
    });
  });
  it('accepts a map of model names to ratios from 0 up', () => {
    expect(parseRatioFile('{"gpt-4o":1.25,"free":0,"__proto__":3}')).toEqual(
      JSON.parse('{"gpt-4o":1.25,"free":0,"__proto__":3}'),
    );
  });
  it.each([
    ['null', 'not a JSON object'],
    ['"text"', 'not a JSON object'],
    ['{"m":null}', 'not a number'],
    ['{"m":"1"}', 'not a number'],
    ['{"m":-0.1}', 'not a number'],
    ['{"m":1e400}', 'not a number'],
    ['{"a\\u0000b":1}', 'control characters'],
    ['{" ":1}', 'empty'],
  ])('refuses %s', (text, reason) => {
    expect(() => parseRatioFile(text)).toThrow(PresetFileError);
    expect(() => parseRatioFile(text)).toThrow(reason);
  });
  it('refuses more than the most models a file may list', () => {
    const many = Object.fromEntries(Array.from({ length: MAX_MODELS + 1 }, (_, i) => [`m${i}`, 1]));
    expect(() => parseRatioFile(JSON.stringify(many))).toThrow('more than');
  });
});
