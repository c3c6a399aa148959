import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createChannelBody,
  createRedemptionBody,
  createTokenBody,
  dataQuery,
  ErrorCode,
  fetchModelsBody,
  inputRefusal,
  inputRule,
  manageUserBody,
  registerBody,
  setupBody,
  topUpAmountBody,
  updateChannelBody,
  updateRedemptionBody,
  userSettingPatch,
} from '../src/index.js';

/** The coded refusal of a schema's first failed check, as the server answers it (field: the issue's path). */
function refusalOf(schema: z.ZodType, input: unknown) {
  const res = schema.safeParse(input);
  expect(res.success, JSON.stringify(input)).toBe(false);
  const issue = res.error!.issues[0]!;
  return inputRefusal(issue, issue.path.join('.'));
}

describe('input rules carry codes', () => {
  it('a refinement with inputRule answers its code, its values and the field; one without is invalid_input with the reason', () => {
    const coded = z.object({
      n: z.number().refine((n) => n % 2 === 0, inputRule(ErrorCode.InputNotInteger, 'n must be even', { max: 4 })),
    });
    expect(refusalOf(coded, { n: 3 })).toEqual({ code: ErrorCode.InputNotInteger, params: { field: 'n', max: 4 } });
    const plain = z.object({ n: z.number().refine((n) => n % 2 === 0, 'n must be even') });
    expect(refusalOf(plain, { n: 3 })).toEqual({
      code: ErrorCode.InvalidInput,
      params: { field: 'n', reason: 'n must be even' },
    });
    const added = z.string().superRefine((_, ctx) =>
      ctx.addIssue({
        code: 'custom',
        ...inputRule(ErrorCode.DateRangeReversed, 'reversed', { field: 'ignored' }, ['to']),
      }),
    );
    expect(refusalOf(z.object({ range: added }), { range: 'x' })).toEqual({
      code: ErrorCode.DateRangeReversed,
      params: { field: 'range.to' },
    });
    // A code that is not one of ErrorCode's is no code.
    const unknown = z.number().refine(() => false, { message: 'nope', params: { code: 'no_such_code' } });
    expect(refusalOf(z.object({ n: unknown }), { n: 1 }).code).toBe(ErrorCode.InvalidInput);
  });

  it('unions, discriminated unions, strict objects and record keys have codes of their own', () => {
    expect(refusalOf(createTokenBody, { name: 'x', unlimited_quota: 'yes' })).toEqual({
      code: ErrorCode.InputWrongType,
      params: { field: 'unlimited_quota' },
    });
    expect(refusalOf(manageUserBody, { id: 1, action: 'explode' })).toMatchObject({
      code: ErrorCode.InputNotInList,
      params: { field: 'action' },
    });
    expect(refusalOf(z.strictObject({ a: z.number() }), { a: 1, b: 2, c: 3 })).toEqual({
      code: ErrorCode.InputUnknownKeys,
      params: { field: '', keys: 'b, c' },
    });
    expect(refusalOf(z.record(z.string().min(2), z.number()), { x: 1 })).toEqual({
      code: ErrorCode.InputBadKey,
      params: { field: 'x' },
    });
  });

  const channel = (fields: Record<string, unknown>) => ({ channel: { name: 'c', key: 'k', models: ['m'], ...fields } });

  it.each<[string, z.ZodType, unknown, ErrorCode, Record<string, unknown>]>([
    [
      'a base_url that is not http(s)',
      createChannelBody,
      channel({ base_url: 'ftp://example.com' }),
      ErrorCode.InputNotHttpUrl,
      { field: 'channel.base_url' },
    ],
    [
      'a base_url to list models from',
      fetchModelsBody,
      { base_url: 'example.com', key: 'k' },
      ErrorCode.InputNotHttpUrl,
      { field: 'base_url' },
    ],
    [
      'an unknown channel type',
      createChannelBody,
      channel({ type: 999 }),
      ErrorCode.ChannelTypeUnknown,
      { field: 'channel.type' },
    ],
    [
      'a model name too long',
      createChannelBody,
      channel({ models: `ok,${'m'.repeat(192)}` }),
      ErrorCode.InputItemTooLong,
      { field: 'channel.models', max: 191 },
    ],
    [
      'a model mapping that is not an object',
      createChannelBody,
      channel({ model_mapping: '[1]' }),
      ErrorCode.InputNotJsonObject,
      { field: 'channel.model_mapping' },
    ],
    [
      'a status code mapping too long once written',
      updateChannelBody,
      { id: 1, status_code_mapping: { a: 'x'.repeat(1100) } },
      ErrorCode.InputTooLong,
      { max: 1024 },
    ],
    [
      'a priority that is not a number',
      updateChannelBody,
      { id: 1, priority: 'high' },
      ErrorCode.InputNotInteger,
      { field: 'priority' },
    ],
    [
      'a priority below -999',
      updateChannelBody,
      { id: 1, priority: -1000 },
      ErrorCode.InputTooSmall,
      { field: 'priority', min: -999 },
    ],
    [
      'a weight too large',
      updateChannelBody,
      { id: 1, weight: '1e13' },
      ErrorCode.InputTooLarge,
      { field: 'weight', max: 1e12 },
    ],
    [
      'a negative channel RPM limit',
      updateChannelBody,
      { id: 1, setting: '{"rpm_limit":-1}' },
      ErrorCode.InputTooSmall,
      { field: 'setting.rpm_limit', min: 0 },
    ],
    ['a status of 3', updateChannelBody, { id: 1, status: 3 }, ErrorCode.StatusInvalid, { field: 'status' }],
    [
      'a channel without a key',
      createChannelBody,
      channel({ key: ' ' }),
      ErrorCode.ChannelNameKeyRequired,
      { field: 'channel.key' },
    ],
    [
      'a channel without models',
      createChannelBody,
      channel({ models: [] }),
      ErrorCode.ChannelModelsRequired,
      { field: 'channel.models' },
    ],
    [
      'a channel without groups',
      createChannelBody,
      channel({ group: [] }),
      ErrorCode.ChannelGroupsRequired,
      { field: 'channel.group' },
    ],
    ['an empty channel name', updateChannelBody, { id: 1, name: '' }, ErrorCode.ChannelNameRequired, { field: 'name' }],
    [
      'a fractional quota',
      createRedemptionBody,
      { name: 'r', quota: 1.5 },
      ErrorCode.InputNotInteger,
      { field: 'quota' },
    ],
    [
      'max_uses of 0',
      createRedemptionBody,
      { name: 'r', quota: 1, max_uses: 0 },
      ErrorCode.RedemptionMaxUsesInvalid,
      { field: 'max_uses' },
    ],
    [
      'both expiry names, differing',
      createRedemptionBody,
      { name: 'r', quota: 1, valid_until: 10, expired_time: 20 },
      ErrorCode.RedemptionExpiryConflict,
      { field: 'expired_time' },
    ],
    [
      'both expiry names on an edit',
      updateRedemptionBody,
      { id: 1, valid_until: 10, expired_time: 20 },
      ErrorCode.RedemptionExpiryConflict,
      { field: 'expired_time' },
    ],
    [
      'a username with @',
      registerBody,
      { username: 'a@b', password: 'password-1' },
      ErrorCode.UsernameHasAt,
      { field: 'username' },
    ],
    [
      'an email that is not one',
      registerBody,
      { username: 'ab', password: 'password-1', email: 'nope' },
      ErrorCode.EmailInvalid,
      { field: 'email' },
    ],
    [
      'a webhook that is not https',
      userSettingPatch,
      { webhook_url: 'http://example.com/hook' },
      ErrorCode.WebhookUrlNotHttps,
      { field: 'webhook_url' },
    ],
    [
      'a fractional quota change',
      manageUserBody,
      { id: 1, action: 'add_quota', mode: 'add', value: 1.5 },
      ErrorCode.InputNotInteger,
      { field: 'value' },
    ],
    [
      'a negative quota change',
      manageUserBody,
      { id: 1, action: 'add_quota', mode: 'add', value: -1 },
      ErrorCode.QuotaNegative,
      { field: 'value' },
    ],
    [
      'setup passwords that differ',
      setupBody,
      { username: 'root', password: 'password-1', confirmPassword: 'password-2' },
      ErrorCode.PasswordsDiffer,
      { field: 'confirmPassword' },
    ],
    [
      'a reversed date range',
      dataQuery,
      { start_timestamp: 20, end_timestamp: 10 },
      ErrorCode.DateRangeReversed,
      { field: 'start_timestamp' },
    ],
    [
      'a token expiry in no known form',
      createTokenBody,
      { name: 't', expired_time: 'tomorrow' },
      ErrorCode.TokenExpiryFormat,
      { field: 'expired_time' },
    ],
    ['a fractional top-up amount', topUpAmountBody, { amount: 2.5 }, ErrorCode.InputNotInteger, { field: 'amount' }],
  ])('%s', (_, schema, input, code, params) => {
    const refusal = refusalOf(schema, input);
    expect(refusal.code).toBe(code);
    expect(refusal.params).toMatchObject(params);
    expect(refusal.params.reason).toBeUndefined();
  });

  it("every refinement and added issue in the shared package's sources carries inputRule (no English reason reaches a text)", () => {
    const root = path.resolve(__dirname, '../src');
    const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const uncoded: string[] = [];
    for (const file of files) {
      const src = fs.readFileSync(path.join(root, file), 'utf8');
      // Options built once with inputRule and named (const EXPIRY_CONFLICT = inputRule(…)).
      const named = [...src.matchAll(/const (\w+) = inputRule\(/g)].map((m) => m[1]!);
      // Each call's whole argument list (prettier may wrap it over lines); a superRefine's body adds its issues.
      for (const call of src.matchAll(/\.(refine|superRefine)\(|addIssue\(/g)) {
        const args = argumentsAt(src, call.index + call[0].length);
        const coded =
          /inputRule\(/.test(args) ||
          (call[1] === 'superRefine' && /^\s*\(/.test(args)) ||
          named.some((n) => new RegExp(`\\b${n}\\b`).test(args));
        if (!coded) uncoded.push(`${file}:${src.slice(0, call.index).split('\n').length} ${args.slice(0, 80)}`);
      }
    }
    expect(uncoded).toEqual([]);
  });
});

/** The text of a call's arguments: from `start` (just past its opening parenthesis) to the parenthesis that closes it. */
function argumentsAt(src: string, start: number): string {
  let depth = 1;
  for (let i = start; i < src.length; i++) {
    if (src[i] === '(') depth++;
    else if (src[i] === ')' && --depth === 0) return src.slice(start, i);
  }
  return src.slice(start);
}
