import { z } from 'zod';

export const THRESHOLD_PRESETS = [100000, 500000, 1000000, 5000000] as const;
export const DEFAULT_THRESHOLD = 500000;

/** PUT /api/user/setting body: the user's notification settings. Messages are i18n keys. */
export const settingsSchema = z
  .object({
    notify_type: z.enum(['email', 'webhook']),
    quota_warning_threshold: z.number({ error: 'me:settings.thresholdMin' }).int().min(0, 'me:settings.thresholdMin'),
    webhook_url: z.string().trim(),
    webhook_secret: z.string(),
    notification_email: z.string().trim(),
    accept_unset_model_ratio_model: z.boolean(),
    show_ip_in_logs: z.boolean(),
  })
  .superRefine((v, ctx) => {
    if (v.notify_type === 'webhook' && !v.webhook_url)
      ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'me:settings.webhookRequired' });
    if (v.webhook_url && !/^https:\/\/\S+$/.test(v.webhook_url))
      ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'me:settings.webhookHttps' });
    if (v.notification_email && !z.email().safeParse(v.notification_email).success)
      ctx.addIssue({ code: 'custom', path: ['notification_email'], message: 'me:settings.emailInvalid' });
  });
export type SettingsValues = z.infer<typeof settingsSchema>;

/** Current values from JSON.parse(user.setting || '{}'), with defaults. */
export function parseSettings(raw: string | undefined): SettingsValues {
  let s: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(raw || '{}');
    if (parsed && typeof parsed === 'object') s = parsed as Record<string, unknown>;
  } catch {
    s = {};
  }
  const threshold = Number(s.quota_warning_threshold);
  return {
    notify_type: s.notify_type === 'webhook' ? 'webhook' : 'email',
    // A saved 0 means no warnings (as the server reads it); only a missing value shows the default.
    quota_warning_threshold:
      s.quota_warning_threshold !== undefined && Number.isFinite(threshold) && threshold >= 0
        ? threshold
        : DEFAULT_THRESHOLD,
    webhook_url: typeof s.webhook_url === 'string' ? s.webhook_url : '',
    webhook_secret: typeof s.webhook_secret === 'string' ? s.webhook_secret : '',
    notification_email: typeof s.notification_email === 'string' ? s.notification_email : '',
    accept_unset_model_ratio_model: s.accept_unset_model_ratio_model === true,
    show_ip_in_logs: s.show_ip_in_logs === true,
  };
}
