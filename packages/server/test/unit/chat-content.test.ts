import { describe, expect, it } from 'vitest';
import { CappedText, CHAT_CONTENT_CAP, CHAT_CONTENT_CUT_MARKER } from '../../src/relay/pipeline/capped-text.js';
import { irAnswerContent, openAIAnswerContent } from '../../src/relay/pipeline/chat-content.js';
import { newStreamState, transformOpenAIChunk } from '../../src/relay/providers/openai/stream.js';

const count = (t: string) => t.length;

describe('CappedText', () => {
  it('joins pieces of one kind and separates kinds with a blank line', () => {
    const c = new CappedText();
    for (const p of ['Let', ' me', ' think']) c.add(p, 'thinking');
    c.add('Hello');
    c.add(' world');
    c.add('{"a":1}', 'tool0');
    c.add('{"b":2}', 'tool1');
    c.add('', 'thinking');
    expect(c.value()).toBe('Let me think\n\nHello world\n\n{"a":1}\n\n{"b":2}');
    expect(c.cut).toBe(false);
  });

  it('keeps at most the cap, drops what follows and marks the cut', () => {
    const c = new CappedText(10);
    c.add('12345');
    c.add('67890');
    expect(c.value()).toBe('1234567890');
    expect(c.cut).toBe(false);
    c.add('X');
    c.add('more text that is dropped');
    expect(c.value()).toBe(`1234567890${CHAT_CONTENT_CUT_MARKER}`);
  });

  it('counts the separator against the cap and never ends on half a surrogate pair', () => {
    const c = new CappedText(6);
    c.add('abc', 'thinking');
    c.add('def');
    expect(c.value()).toBe(`abc\n\nd${CHAT_CONTENT_CUT_MARKER}`);
    const e = new CappedText(4);
    e.add('abc😀');
    expect(e.value()).toBe(`abc${CHAT_CONTENT_CUT_MARKER}`);
  });

  it('defaults to CHAT_CONTENT_CAP', () => {
    const c = new CappedText();
    c.add('y'.repeat(CHAT_CONTENT_CAP * 3));
    expect(c.value()).toBe('y'.repeat(CHAT_CONTENT_CAP) + CHAT_CONTENT_CUT_MARKER);
  });
});

describe('answer text', () => {
  it('of an IR response: reasoning, text and each tool call’s arguments; images left out', () => {
    expect(
      irAnswerContent([
        { type: 'thinking', text: 'hmm' },
        { type: 'text', text: 'Sure.' },
        { type: 'image', url: 'https://x/y.png' },
        { type: 'tool_call', id: 'c1', name: 'f', arguments: '{"q":1}' },
        { type: 'tool_call', id: 'c2', name: 'f', arguments: '{"q":2}' },
      ]),
    ).toBe('hmm\n\nSure.\n\n{"q":1}\n\n{"q":2}');
  });

  it('of a whole OpenAI chat or completions body', () => {
    const chat = {
      choices: [
        {
          message: {
            role: 'assistant',
            reasoning_content: 'why',
            content: 'Hi "there"\n',
            tool_calls: [{ function: { name: 'f', arguments: '{}' } }],
          },
        },
      ],
    };
    expect(openAIAnswerContent(JSON.stringify(chat), true)).toBe('why\n\nHi "there"\n\n\n{}');
    expect(openAIAnswerContent(JSON.stringify({ choices: [{ text: 'completed' }] }), true)).toBe('completed');
    expect(openAIAnswerContent('not json', true)).toBe('');
  });

  it('of the start of an OpenAI body too long to keep: the content as far as it goes, marked cut', () => {
    const body = JSON.stringify({
      id: 'x',
      choices: [{ message: { role: 'assistant', content: 'line one\nline "two" é \u00e9 more' } }],
    });
    const cutAt = body.indexOf('\\"two') + 1; // inside an escape
    expect(openAIAnswerContent(body.slice(0, cutAt), false)).toBe(`line one\nline ${CHAT_CONTENT_CUT_MARKER}`);
    const unicodeCut = JSON.stringify({ choices: [{ message: { content: 'ab\u0001cd' } }] });
    expect(openAIAnswerContent(unicodeCut.slice(0, unicodeCut.indexOf('\\u0001') + 4), false)).toBe(
      `ab${CHAT_CONTENT_CUT_MARKER}`,
    );
  });

  it('of an OpenAI stream: deltas captured only when a capture is given', () => {
    const events = [
      { choices: [{ delta: { reasoning_content: 'plan' } }] },
      { choices: [{ delta: { content: 'Hel' } }] },
      { choices: [{ delta: { content: 'lo' } }] },
      { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] } }] },
      { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] } }] },
      { choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } },
    ];
    const sse = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n';
    const capture = new CappedText();
    const state = newStreamState(capture);
    // Split mid-event to show the capture follows the event framing.
    transformOpenAIChunk(state, sse.slice(0, 50), false, count);
    transformOpenAIChunk(state, sse.slice(50), false, count);
    expect(capture.value()).toBe('plan\n\nHello\n\n{"a":1}');
    const off = newStreamState();
    transformOpenAIChunk(off, sse, false, count);
    expect(off.capture).toBeUndefined();
  });
});
