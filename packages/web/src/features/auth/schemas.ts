import { isEmailAddress } from '@tollway/shared';
import { z } from 'zod';

/** Register: only the password minimum is checked; email and code when verification is on. */
export function registerSchema(emailVerification: boolean) {
  return z
    .object({
      username: z
        .string()
        .trim()
        .min(1, 'auth:register.usernameRequired')
        .max(20, 'auth:register.usernameMax')
        .refine((v) => !v.includes('@'), 'auth:register.usernameAt'),
      password: z.string().min(8, 'auth:register.passwordMin'),
      password2: z.string(),
      email: z.string().trim(),
      verification_code: z.string().trim(),
    })
    .superRefine((v, ctx) => {
      if (v.password2 !== v.password)
        ctx.addIssue({ code: 'custom', path: ['password2'], message: 'auth:register.mismatch' });
      if (!emailVerification) return;
      if (!v.email) ctx.addIssue({ code: 'custom', path: ['email'], message: 'auth:register.emailRequired' });
      else if (!isEmailAddress(v.email))
        ctx.addIssue({ code: 'custom', path: ['email'], message: 'auth:register.emailInvalid' });
      if (!v.verification_code)
        ctx.addIssue({ code: 'custom', path: ['verification_code'], message: 'auth:register.codeRequired' });
    });
}
export type RegisterValues = z.infer<ReturnType<typeof registerSchema>>;
