import { z } from 'zod';

export const USAGE_MODES = ['external', 'self', 'demo'] as const;
export type UsageMode = (typeof USAGE_MODES)[number];

/** Setup form: username required, password at least 8, confirmation must match. Messages are i18n keys. */
export const setupSchema = z
  .object({
    username: z.string().trim().min(1, 'setup:usernameRequired').max(20, 'setup:usernameMax'),
    password: z.string().min(8, 'setup:passwordMin'),
    confirmPassword: z.string(),
    mode: z.enum(USAGE_MODES),
  })
  .refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'setup:mismatch' });
export type SetupValues = z.infer<typeof setupSchema>;

/** GET /api/setup answer. */
export interface SetupInfo {
  status: boolean;
  root_init: boolean;
  database_type: string;
}

/** POST /api/setup body. */
export function setupBody(v: SetupValues) {
  return {
    username: v.username.trim(),
    password: v.password,
    confirmPassword: v.confirmPassword,
    SelfUseModeEnabled: v.mode === 'self',
    DemoSiteEnabled: v.mode === 'demo',
  };
}
