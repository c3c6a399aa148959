import { describe, expect, it } from 'vitest';
import { routeModules } from '../../src/app.js';
import { Router } from '../../src/http/route.js';
import { auditNamesOf } from '../../src/modules/audit/codes.js';
import {
  AUDIT_ACTIONS,
  AUDIT_TARGETS,
  auditActionText,
  auditTargetText,
} from '../../../web/src/features/audit/labels.js';

const router = new Router();
for (const mod of routeModules) mod(router);
const names = auditNamesOf(router.routes);
const HAN = /\p{Script=Han}/u;

/** The console's audit log words every action code and target type the server's routes can write, in zh and en. */
describe('audit log texts', () => {
  it('finds the codes the routes write, the computed ones included', () => {
    expect(names.actions).toEqual(
      expect.arrayContaining(['auth.login', 'option.update', 'user.promote', 'user.update']),
    );
    expect(names.targets).toEqual(expect.arrayContaining(['option', 'user', 'channel_tag']));
  });

  it.each([
    ['action', () => names.actions, AUDIT_ACTIONS],
    ['target', () => names.targets, AUDIT_TARGETS],
  ] as const)('every %s the server can write has a zh text in Chinese and an en text', (_kind, codes, texts) => {
    const missing = codes().filter((c) => !Object.hasOwn(texts, c));
    expect(missing).toEqual([]);
    for (const c of codes()) {
      expect(texts[c]!.zh, c).toMatch(HAN);
      expect(texts[c]!.en.trim(), c).not.toBe('');
      expect(texts[c]!.en, c).not.toMatch(HAN);
    }
  });

  it('words a row in the viewer language and shows an unknown code as it is', () => {
    expect(auditActionText('auth.login', 'zh')).toBe('登录');
    expect(auditActionText('auth.login', 'en')).toBe('Sign in');
    expect(auditTargetText('user', '2', 'zh')).toBe('用户 #2');
    expect(auditTargetText('user', '2', 'en')).toBe('User #2');
    expect(auditActionText('future.thing', 'zh')).toBe('future.thing');
    expect(auditActionText('constructor', 'en')).toBe('constructor');
  });
});
