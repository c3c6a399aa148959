import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AccessLevel } from '@tollway/shared';
import type { AuthUser } from '../core/auth-user.js';
import type { AppContext } from '../context.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HandlerArgs<Q, B, P> {
  req: FastifyRequest;
  reply: FastifyReply;
  query: Q;
  body: B;
  params: P;
  /** Present for every level except public (where it is present only if a session is given). */
  user: AuthUser | undefined;
  ctx: AppContext;
}

/** What an audited call did, as the audit trail sees it after the handler returned. */
export interface AuditedCall {
  /* eslint-disable @typescript-eslint/no-explicit-any -- each route's audit reads its own validated input */
  params: any;
  query: any;
  body: any;
  /* eslint-enable @typescript-eslint/no-explicit-any */
  /** The handler's result (never written to the log itself). */
  data: unknown;
}

/**
 * How a route appears in the administrators' audit log, where the default (every successful non-GET call to an
 * admin or root route, named from its method and url) is poor. Secrets in fields are masked whatever they say.
 */
export interface RouteAudit {
  /** Action name such as 'user.manage' (default: '<resource>.<create|update|delete|sub-path>'). */
  action?: string | ((call: AuditedCall) => string);
  /** Kind of target such as 'user' (default: the url's resource). */
  target?: string;
  /** The target's id (default: params.id, body.id, the result's id or ids, body.ids). */
  targetId?(call: AuditedCall): string | number | undefined;
  /** The fields written to detail (default: the body's). */
  fields?(call: AuditedCall): unknown;
  /** A public route (sign-in): the actor from the result; only administrators are recorded. */
  actor?(call: AuditedCall): { id: number; username: string; role: number } | undefined;
}

export interface RouteDef<
  QS extends z.ZodType = z.ZodType,
  BS extends z.ZodType = z.ZodType,
  PS extends z.ZodType = z.ZodType,
> {
  method: Method;
  url: string;
  level: AccessLevel;
  summary: string;
  tags: string[];
  query?: QS;
  body?: BS;
  params?: PS;
  /** Schema of `data` in the success envelope (documentation). */
  response?: z.ZodType;
  /**
   * A public route whose handler authenticates an API key (Authorization: Bearer sk-…) instead of a session, as
   * new-api's read-only token calls do: 401 without a valid key, whoever is signed in.
   */
  apiKey?: boolean;
  /** `critical`: the per-IP limit for login/register-style calls. */
  rateLimit?: 'critical';
  /** The handler writes the reply itself (downloads, redirects). */
  raw?: boolean;
  /** Keep the body's bytes as sent (rawBodyOf in http/raw-body.ts): a webhook's signature covers them. */
  rawBody?: boolean;
  /** Message sent with a successful envelope. */
  successMessage?: string;
  /** Audit log entry of a successful call (see RouteAudit); false: never recorded. */
  audit?: RouteAudit | false;
  handler(args: HandlerArgs<z.infer<QS>, z.infer<BS>, z.infer<PS>>): Promise<unknown> | unknown;
}

/** The caller as an audit entry names it. */
export interface AuditActor {
  id: number;
  username: string;
  role: number;
}

/** Records one route's calls in the audit log; neither method ever throws. */
export interface AuditTrail {
  /** After the handler returned: the call, when the route records successes. */
  succeeded(
    ctx: AppContext,
    req: FastifyRequest,
    reply: FastifyReply,
    user: AuditActor | undefined,
    call: AuditedCall,
  ): Promise<void>;
  /** After the call threw: a 403 refusal of an administrator (the guard's, or a business rule's). */
  failed(ctx: AppContext, req: FastifyRequest, err: unknown, user: AuditActor | undefined): Promise<void>;
}

/**
 * What registration needs from the modules that know users and the audit log, given by the app (app.ts) so that
 * http/ imports no module.
 */
export interface RouteHooks {
  /** The caller of a route that needs one, from the request's headers alone; throws the 401s. */
  authenticate(req: FastifyRequest, ctx: AppContext): Promise<AuthUser>;
  /** Throws the 403s: a role below the level's, or an administrator who must first set up 2FA. */
  requireLevel(req: FastifyRequest, ctx: AppContext, user: AuthUser, level: AccessLevel): Promise<void>;
  /** The audit trail of a route, undefined when it records nothing. */
  auditTrailFor(def: RouteDef): AuditTrail | undefined;
}

/** Collects route definitions; the app registers them with Fastify and the OpenAPI document reads them. */
export class Router {
  readonly routes: RouteDef[] = [];

  add<QS extends z.ZodType, BS extends z.ZodType, PS extends z.ZodType>(def: RouteDef<QS, BS, PS>): void {
    this.routes.push(def as unknown as RouteDef);
  }
}

/** Per-module registration function. */
export type RouteModule = (router: Router) => void;
