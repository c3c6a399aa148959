/** User management (spec 1 §2): placeholder until the users feature lands. */
export default function UsersPage() {
  return null;
}
