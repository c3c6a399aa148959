import { z } from 'zod';

/**
 * POST /api/user/login/ldap. An empty password is accepted here and refused by the sign-in with the same answer as
 * a wrong one (an LDAP bind without a password would be an "unauthenticated bind", never a sign-in).
 */
export const ldapLoginBody = z.object({
  username: z.string().trim().max(256).default(''),
  password: z.string().max(256).default(''),
});
export type LdapLoginBody = z.infer<typeof ldapLoginBody>;
