import {
  REDEMPTION_KEY_LENGTH as KEY_MAX,
  REDEMPTION_KEY_PATTERN,
  REDEMPTION_MAX_BATCH as MAX_BATCH,
  REDEMPTION_NAME_MAX as NAME_MAX,
} from '@tollway/shared';
import { z } from 'zod';
import type { Redemption, RedemptionInput } from './api';

export { KEY_MAX, MAX_BATCH, NAME_MAX };
/** Defaults of a new code. */
export const DEFAULT_QUOTA = 100000;
/** Quota presets in dollars. */
export const DOLLAR_PRESETS = [1, 10, 50, 100, 500, 1000] as const;

/** Editor state; messages are i18n keys, translated by the shell's FormField. */
export const redemptionFormSchema = (creating: boolean) =>
  z
    .object({
      name: z
        .string()
        .trim()
        .min(1, 'redemption:validation.nameRequired')
        .max(NAME_MAX, 'redemption:validation.nameTooLong'),
      quota: z
        .number('redemption:validation.quotaInteger')
        .int('redemption:validation.quotaInteger')
        .min(1, 'redemption:validation.quotaInteger'),
      count: z
        .number('redemption:validation.countRange')
        .int('redemption:validation.countRange')
        .min(1, 'redemption:validation.countRange')
        .max(MAX_BATCH, 'redemption:validation.countRange'),
      key: z
        .string()
        .trim()
        .max(KEY_MAX, 'redemption:validation.keyFormat')
        .regex(REDEMPTION_KEY_PATTERN, 'redemption:validation.keyFormat'),
      is_gift: z.boolean(),
      /** null: blank, unlimited. */
      max_uses: z.number().int('redemption:validation.maxUses').nullable(),
      /** Epoch seconds; null blank. */
      valid_from: z.number().nullable(),
      valid_until: z.number().nullable(),
    })
    .superRefine((v, ctx) => {
      if (creating && v.key && v.count !== 1)
        ctx.addIssue({ code: 'custom', path: ['count'], message: 'redemption:validation.keyCount' });
      if (v.is_gift && v.max_uses !== null && v.max_uses !== -1 && v.max_uses < 1)
        ctx.addIssue({ code: 'custom', path: ['max_uses'], message: 'redemption:validation.maxUses' });
      if (v.valid_from && v.valid_until && v.valid_from >= v.valid_until)
        ctx.addIssue({ code: 'custom', path: ['valid_until'], message: 'redemption:validation.window' });
    });
export type RedemptionForm = z.infer<ReturnType<typeof redemptionFormSchema>>;

export function formDefaults(r?: Redemption): RedemptionForm {
  return {
    name: r?.name ?? '',
    quota: r?.quota ?? DEFAULT_QUOTA,
    count: 1,
    key: '',
    is_gift: r?.is_gift ?? false,
    max_uses: r?.is_gift && r.max_uses > 0 ? r.max_uses : null,
    valid_from: r?.valid_from || null,
    valid_until: r?.valid_until || null,
  };
}

export function toInput(v: RedemptionForm): RedemptionInput {
  return {
    name: v.name.trim(),
    quota: v.quota,
    is_gift: v.is_gift,
    max_uses: v.is_gift ? (v.max_uses ?? -1) : -1,
    valid_from: v.valid_from ?? 0,
    valid_until: v.valid_until ?? 0,
  };
}

export const TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';
