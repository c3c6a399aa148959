import { z } from 'zod';
import { ErrorCode, optionItem, paymentComplianceBody, resolveOptionKey, updateOptionBody } from '@tollway/shared';
import { confirmCompliance } from './compliance.js';
import { coded } from '../../lib/errors.js';
import { sensitiveWordsRefusal } from '../../lib/sensitive-words.js';
import type { Router } from '../../http/route.js';

export function optionRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/option/',
    level: 'admin',
    summary:
      'List the options the caller may read with their current values (secrets blank): root every option, an administrator the operation settings',
    tags: ['options'],
    response: z.array(optionItem),
    handler: ({ ctx, user }) => ctx.options.list(user!.role),
  });
  r.add({
    method: 'PUT',
    url: '/api/option/',
    level: 'admin',
    summary:
      'Set one option: root any, an administrator an operation setting (a root-only key is refused with option_root_only)',
    tags: ['options'],
    body: updateOptionBody,
    handler: async ({ ctx, body, user }) => {
      ctx.options.assertWritable(user!.role, body.key);
      // Administrator patterns must run in the linear-time engine: refused here, with the engine's reason.
      const refusal =
        resolveOptionKey(body.key) === 'SensitiveWords' && typeof body.value === 'string'
          ? sensitiveWordsRefusal(body.value)
          : undefined;
      if (refusal) throw coded(refusal.code, refusal.message, { ...refusal.params, key: 'SensitiveWords' });
      await ctx.options.set(body.key, body.value);
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/option/payment_compliance',
    level: 'root',
    summary:
      "new-api's payment compliance acknowledgment ({confirmed: true}): recorded in payment_setting.compliance_* (terms v1, who, when, from where), which unlocks plan and payment pages of new-api's console",
    tags: ['options'],
    body: paymentComplianceBody,
    handler: ({ ctx, user, req, body }) => {
      if (!body.confirmed) throw coded(ErrorCode.ComplianceNotConfirmed, 'please confirm the compliance statement');
      return confirmCompliance(ctx.options, user!, req.ip);
    },
  });
  r.add({
    method: 'POST',
    url: '/api/option/migrate_console_setting',
    level: 'root',
    summary:
      'new-api\'s one-time move of its old console keys (ApiInfo, Announcements, FAQ, UptimeKuma*) to console_setting.*: nothing to move here (Tollway never stores the old keys; an import reports them as unknown), answers "migrated"',
    tags: ['options'],
    successMessage: 'migrated',
    handler: () => undefined,
  });
}
