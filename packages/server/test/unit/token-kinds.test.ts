import { describe, expect, it } from 'vitest';
import { fromOpenAIUsage } from '../../src/relay/billing/usage.js';
import { usageToIR as anthropicUsageToIR } from '../../src/relay/providers/anthropic/stream.js';
import { geminiUsageToIR } from '../../src/relay/providers/gemini/stream.js';
import { openAIUsageToIR, chatUsageNames, responsesUsageNames } from '../../src/relay/providers/openai/usage.js';

/** Token kinds as each vendor documents them in its usage, read into the kinds expressions price. */
describe('token kinds from vendor usage', () => {
  it('OpenAI chat and Responses: audio and image tokens of the input and output details', () => {
    const chat = {
      prompt_tokens: 100,
      completion_tokens: 50,
      total_tokens: 150,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 30, image_tokens: 20 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 40 },
    };
    const kinds = { audioIn: 30, imageIn: 20, audioOut: 40 };
    expect(fromOpenAIUsage(chat)?.kinds).toEqual(kinds);
    expect(openAIUsageToIR(chat, chatUsageNames).kinds).toEqual(kinds);
    const responses = {
      input_tokens: 100,
      output_tokens: 4160,
      total_tokens: 4260,
      input_tokens_details: { image_tokens: 60 },
      output_tokens_details: { image_tokens: 4160 },
    };
    expect(openAIUsageToIR(responses, responsesUsageNames).kinds).toEqual({ imageIn: 60, imageOut: 4160 });
    expect(fromOpenAIUsage({ prompt_tokens: 1, completion_tokens: 1 })?.kinds).toBeUndefined();
  });

  it('Anthropic: the 1-hour cache writes', () => {
    const u = anthropicUsageToIR({
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 70,
      cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 40 },
    });
    expect(u).toMatchObject({ cacheWriteTokens: 70, kinds: { cacheWrite1h: 40 } });
    // A later usage without the breakdown (message_delta) keeps what the first said.
    expect(anthropicUsageToIR({ output_tokens: 9 }, u).kinds).toEqual({ cacheWrite1h: 40 });
  });

  it('Gemini: prompt and candidate tokens by modality', () => {
    const u = geminiUsageToIR({
      promptTokenCount: 300,
      candidatesTokenCount: 1300,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 42 },
        { modality: 'IMAGE', tokenCount: 258 },
      ],
      candidatesTokensDetails: [
        { modality: 'IMAGE', tokenCount: 1290 },
        { modality: 'TEXT', tokenCount: 10 },
      ],
    });
    expect(u.kinds).toEqual({ imageIn: 258, imageOut: 1290 });
  });
});
