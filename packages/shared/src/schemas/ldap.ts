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

/** GET /api/user/ldap/binding: whether the caller has a directory account bound, and its name. */
export const ldapBindingStatus = z.object({ bound: z.boolean(), username: z.string() });
export type LdapBindingStatus = z.infer<typeof ldapBindingStatus>;
