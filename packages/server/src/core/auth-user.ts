/**
 * The authenticated caller as routes and services see it. It lives on this floor, below http/ and modules/, so the
 * route declarations (http/route.ts) name it without importing the auth module that finds it.
 */
export interface AuthUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
}
