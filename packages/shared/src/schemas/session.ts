import { z } from 'zod';

/** One of the caller's signed-in console sessions (GET /api/user/sessions). */
export const sessionView = z.object({
  /** The session's row key (a hash; it cannot be turned back into a cookie). */
  id: z.string(),
  created_at: z.number().int(),
  expires_at: z.number().int(),
  ip: z.string(),
  user_agent: z.string(),
  /**
   * How it was signed in: 'password', 'passkey:<id>', 'ldap', 'oauth:<provider>', 'custom_oauth:<provider id>';
   * '' for sessions from before this was recorded.
   */
  origin: z.string(),
  /** The session this call was made with. */
  current: z.boolean(),
});
export type SessionView = z.infer<typeof sessionView>;
