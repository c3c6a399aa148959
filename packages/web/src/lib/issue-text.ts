import { inputRefusal } from '@tollway/shared';
import type { z } from 'zod';
import i18n from '../i18n';

/**
 * A failed check of a shared schema in the viewer's language: the text of its code (namespace `errors`, which the
 * page loads with its own texts) for `field`, so a console form never shows the schema's English message.
 */
export function issueText(issue: z.core.$ZodIssue, field: string): string {
  const { code, params } = inputRefusal(issue, field);
  return i18n.t(`errors:${code}`, { ...params, defaultValue: issue.message });
}
