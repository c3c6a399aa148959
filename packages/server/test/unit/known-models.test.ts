import { ChannelType, channelTypes } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { knownModels, modelsByType } from '../../src/modules/channels/known-models.js';

/** The channel editor's "fill default models": the task channel types offer new-api's model names. */
describe('default models of the task channel types', () => {
  const byType = modelsByType();

  it('Kling offers its video models, Sora its two; Suno and Midjourney their task models', () => {
    expect(byType[String(ChannelType.Kling)]).toEqual([
      'kling-v1',
      'kling-v1-6',
      'kling-v2-master',
      'kling-v2-1-master',
      'kling-v2-5-turbo',
      'kling-v2-6',
    ]);
    expect(byType[String(ChannelType.Sora)]).toEqual(['sora-2', 'sora-2-pro']);
    expect(byType[String(ChannelType.SunoAPI)]).toEqual(['suno_music', 'suno_lyrics']);
    expect(byType[String(ChannelType.Jimeng)]).toEqual(['jimeng_vgfm_t2v_l20']);
    expect(byType[String(ChannelType.Vidu)]).toEqual(['viduq2', 'viduq1', 'vidu2.0', 'vidu1.5']);
    expect(byType[String(ChannelType.DoubaoVideo)]).toContain('doubao-seedance-1-0-pro-250528');
    expect(byType[String(ChannelType.Replicate)]).toEqual(['black-forest-labs/flux-1.1-pro']);
    expect(byType[String(ChannelType.Midjourney)]).toContain('mj_imagine');
    expect(byType[String(ChannelType.MidjourneyPlus)]).toEqual(
      expect.arrayContaining(['mj_imagine', 'mj_modal', 'swap_face']),
    );
  });

  it('an OpenAI channel offers the Sora models beside its chat models, once each; other types do not', () => {
    const openai = byType[String(ChannelType.OpenAI)]!;
    expect(openai).toEqual(expect.arrayContaining(['gpt-4o', 'sora-2', 'sora-2-pro']));
    expect(new Set(openai).size).toBe(openai.length);
    expect(byType[String(ChannelType.Anthropic)]).not.toContain('sora-2');
    expect(byType[String(ChannelType.Azure)]).not.toContain('sora-2');
    expect(byType[String(ChannelType.Kling)]).not.toContain('gpt-4o');
  });

  it('every channel type has an entry', () => {
    expect(Object.keys(byType).sort()).toEqual(channelTypes.map((t) => String(t.id)).sort());
  });

  it('the known model list names each task model with its owner', () => {
    const owners = new Map(knownModels([]).map((m) => [m.id, m.owned_by]));
    expect(owners.get('kling-v2-6')).toBe('kling');
    expect(owners.get('sora-2-pro')).toBe('openai');
    expect(owners.get('suno_lyrics')).toBe('suno');
    expect(owners.get('viduq2')).toBe('vidu');
    expect(owners.get('doubao-seedance-2-0-260128')).toBe('doubao-video');
    expect(owners.get('black-forest-labs/flux-1.1-pro')).toBe('replicate');
    expect(owners.get('mj_imagine')).toBe('midjourney');
    expect(owners.get('swap_face')).toBe('midjourney');
  });
});
