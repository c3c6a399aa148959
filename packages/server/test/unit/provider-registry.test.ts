import { existsSync, readFileSync } from 'node:fs';
import { ChannelType, channelTypeById, channelTypes } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { aiProxyLibraryAdaptor } from '../../src/relay/providers/aiproxy/adaptor.js';
import { anthropicAdaptor } from '../../src/relay/providers/anthropic/adaptor.js';
import { bedrockClaudeAdaptor, bedrockConverseAdaptor } from '../../src/relay/providers/aws/adaptor.js';
import { azureAdaptor } from '../../src/relay/providers/azure/adaptor.js';
import { baiduAdaptor } from '../../src/relay/providers/baidu/adaptor.js';
import { providerCatalog } from '../../src/relay/providers/catalog.js';
import { defineProvider } from '../../src/relay/providers/descriptor.js';
import { formatFor, formatNames } from '../../src/relay/providers/formats.js';
import { codexAdaptor } from '../../src/relay/providers/codex/adaptor.js';
import { cohereChat } from '../../src/relay/providers/cohere/convert.js';
import { cohereAdaptor } from '../../src/relay/providers/cohere/adaptor.js';
import { cozeAdaptor } from '../../src/relay/providers/coze/adaptor.js';
import { difyAdaptor } from '../../src/relay/providers/dify/adaptor.js';
import { geminiAdaptor } from '../../src/relay/providers/gemini/adaptor.js';
import { openAIAdaptor } from '../../src/relay/providers/openai/adaptor.js';
import { palmAdaptor } from '../../src/relay/providers/palm/adaptor.js';
import { replicateAdaptor } from '../../src/relay/providers/replicate/adaptor.js';
import {
  adaptorFor,
  descriptorFor,
  providers,
  taskChannelTypes,
  typesWithoutAdaptor,
} from '../../src/relay/providers/registry.js';
import { taskPlatformForChannelType } from '../../src/relay/tasks/platforms.js';
import { tencentAdaptor } from '../../src/relay/providers/tencent/adaptor.js';
import { vertexClaudeAdaptor, vertexGeminiAdaptor } from '../../src/relay/providers/vertex/adaptor.js';
import { xunfeiAdaptor } from '../../src/relay/providers/xunfei/adaptor.js';
import { zhipuAdaptor } from '../../src/relay/providers/zhipu/adaptor.js';

/** The adaptor each type had before the registry: by the row's format, Bedrock and Vertex by model. */
function adaptorByRowFormat(type: number, model: string) {
  if (type === ChannelType.Aws)
    return /^claude|(^|\.)anthropic\./.test(model) ? bedrockClaudeAdaptor : bedrockConverseAdaptor;
  if (type === ChannelType.VertexAi) return model.startsWith('claude') ? vertexClaudeAdaptor : vertexGeminiAdaptor;
  const byFormat: Record<string, unknown> = {
    openai: openAIAdaptor,
    azure: azureAdaptor,
    anthropic: anthropicAdaptor,
    gemini: geminiAdaptor,
    cohere: cohereAdaptor,
    dify: difyAdaptor,
    coze: cozeAdaptor,
    hunyuan: tencentAdaptor,
    ernie: baiduAdaptor,
    chatglm: zhipuAdaptor,
    spark: xunfeiAdaptor,
    'aiproxy-library': aiProxyLibraryAdaptor,
    palm: palmAdaptor,
    responses: codexAdaptor,
    replicate: replicateAdaptor,
  };
  return byFormat[channelTypeById.get(type)?.format ?? ''];
}

const MODELS = [
  'gpt-4o',
  'claude-sonnet-4-5-20250929',
  'anthropic.claude-3-haiku-20240307-v1:0',
  'gemini-2.5-pro',
  'meta.llama3-70b-instruct-v1:0',
];

describe('provider registry', () => {
  it('serves every channel type by one descriptor or the task relay, or lists it as a type without an adaptor yet', () => {
    for (const t of channelTypes) {
      const served = descriptorFor(t.id) !== undefined;
      const task = taskChannelTypes.has(t.id);
      expect({ type: t.id, served, task, pending: typesWithoutAdaptor.has(t.id) }).toEqual({
        type: t.id,
        served: !task && !typesWithoutAdaptor.has(t.id),
        task,
        pending: !served && !task,
      });
    }
    // Task types come with the task relay (a platform serves each); they have no chat adaptor.
    for (const task of taskChannelTypes) {
      expect(adaptorFor(task, 'mj_imagine')).toBeUndefined();
      expect(taskPlatformForChannelType(task), `type ${task}`).toBeDefined();
    }
    const claimed = providers.flatMap((p) => [...p.types]);
    expect(new Set(claimed).size).toBe(claimed.length);
  });

  it('gives every type and model the adaptor it had before the registry', () => {
    for (const t of [...channelTypes.map((c) => c.id), 0, 99]) {
      for (const model of MODELS)
        expect({ type: t, model, adaptor: adaptorFor(t, model) }).toEqual({
          type: t,
          model,
          adaptor: adaptorByRowFormat(t, model),
        });
    }
  });

  it("names every adaptor's format among its descriptor's formats", () => {
    for (const p of providers) {
      for (const t of p.types)
        for (const model of MODELS) expect(Object.keys(p.formats)).toContain(adaptorFor(t, model)!.format);
    }
  });

  it("derives the format table from the descriptors: each name one converter, the descriptors' own", () => {
    expect([...formatNames].sort()).toEqual([
      'aiproxy-library',
      'anthropic',
      'chatglm',
      'cohere',
      'converse',
      'coze',
      'dify',
      'ernie',
      'gemini',
      'hunyuan',
      'openai',
      'palm',
      'replicate',
      'responses',
      'spark',
    ]);
    for (const p of providers)
      for (const [name, format] of Object.entries(p.formats)) {
        expect(format.name).toBe(name);
        expect(formatFor(name)).toBe(format);
      }
    expect(() => formatFor('acme')).toThrow('no wire format acme');
    // An adaptor speaking a format its descriptor does not list does not compile.
    const mismatched = () =>
      // @ts-expect-error the Dify adaptor speaks `dify`, which this descriptor does not list
      defineProvider({ name: 'mismatched', types: [], formats: { cohere: cohereChat }, adaptor: difyAdaptor });
    expect(mismatched).toBeTypeOf('function');
  });

  it('has a contract test for every provider: test/unit/providers/<name>.test.ts (test/support/provider-contract.ts)', () => {
    for (const p of providers) {
      const file = new URL(`./providers/${p.name}.test.ts`, import.meta.url);
      const contract = existsSync(file) && readFileSync(file, 'utf8').includes('describeProviderContract(');
      expect({ provider: p.name, contract }).toEqual({ provider: p.name, contract: true });
    }
  });

  it('serves every OpenAI-format row by the OpenAI descriptor', () => {
    for (const t of channelTypes.filter((c) => c.format === 'openai')) expect(descriptorFor(t.id)?.name).toBe('openai');
  });

  it('keeps the old key, balance and listing rules', () => {
    expect(providerCatalog.jsonKeys(ChannelType.VertexAi)).toBe(true);
    expect(channelTypes.filter((t) => providerCatalog.jsonKeys(t.id)).map((t) => t.id)).toEqual([
      ChannelType.VertexAi,
      ChannelType.Codex,
    ]);
    expect(() => providerCatalog.checkKey(ChannelType.VertexAi, '{}')).toThrow(/service account/);
    expect(() => providerCatalog.checkKey(ChannelType.Aws, 'ak|sk')).toThrow(
      'channel type 33 needs the key format Ak|Sk|Region',
    );
    expect(() => providerCatalog.checkKey(ChannelType.Aws, 'ak|sk|us-east-1')).not.toThrow();
    expect(() => providerCatalog.checkKey(ChannelType.Baidu, 'only-one')).toThrow(
      'needs the key format APIKey|SecretKey',
    );
    expect(() => providerCatalog.checkKey(ChannelType.FastGPT, 'sk-with-dashes-app1')).not.toThrow();
    expect(() => providerCatalog.checkOther(ChannelType.VertexAi, '{bad')).toThrow(
      'the region must be plain text or a valid JSON object',
    );
    expect(() => providerCatalog.checkOther(ChannelType.VertexAi, 'us-central1')).not.toThrow();
    // Own model lists: Anthropic's headers and Gemini's pages; every other type lists OpenAI-style /v1/models.
    expect(providers.filter((p) => p.listModels).map((p) => p.name)).toEqual(['openai', 'anthropic', 'gemini']);
    const withBalance = channelTypes.filter((t) => providerCatalog.hasBalance(t.id)).map((t) => t.id);
    expect(withBalance).toEqual([
      ChannelType.OpenAI,
      ChannelType.Custom,
      ChannelType.OpenRouter,
      ChannelType.SiliconFlow,
      ChannelType.DeepSeek,
    ]);
  });
});
