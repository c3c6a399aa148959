import { AUTO_GROUP } from '@tollway/shared';
import type { TokenAuth } from '../entry/auth-cache.js';
import { forRequest, requestOf, resolvePrice, type ResolvedPrice } from '../billing/price.js';
import { nextChannel, type ChannelChoice } from './admit.js';
import type { RelayContext } from './services.js';

/**
 * A call of an `auto` token, as new-api routes it: the AutoGroups option in its order, less the groups the user may
 * not use; the call is served in the first of them with a channel for the model. With the token's
 * cross_group_retry on, a group whose retries are spent (RetryTimes + 1 attempts, or no untried channel left)
 * hands the call to the next group serving the model, whose retry count starts again from 0; without it the call
 * stays in its group. The call is billed at the ratio of the group that served it (and logged under that group).
 * With cross_group_retry its hold is taken at the dearest group it may move to (holdPrice), and it moves on only to
 * groups priced no higher than the hold: a dearer group could deliver more than the hold pays for.
 */
export interface AutoRoute {
  /** The usable auto groups, in AutoGroups order. */
  groups: string[];
  /** The group now tried (an index into groups). */
  index: number;
  cross: boolean;
  /** The current group's retries are spent: the next attempt is the next group's. */
  spent: boolean;
  /** The group ratio the call's hold was planned at (holdPrice); undefined: its first group's. */
  heldRatio?: number;
}

/** The auto route of a call, or undefined when the token is not of the `auto` group (one comparison). */
export function autoRoute(ctx: RelayContext, auth: TokenAuth, model: string): AutoRoute | undefined {
  if (auth.group !== AUTO_GROUP) return undefined;
  const all = ctx.options.json<unknown>('AutoGroups');
  const groups = Array.isArray(all)
    ? all.filter(
        (g): g is string =>
          typeof g === 'string' && g !== AUTO_GROUP && ctx.relay.tokens.groupUsable(auth.userGroup, g),
      )
    : [];
  return { groups, index: servingFrom(ctx, groups, model, 0), cross: auth.crossGroupRetry, spent: false };
}

/**
 * The group a task or realtime session of `auth` is served in: for an `auto` token the first usable auto group
 * serving the model (they run on one channel, so there is no group to move on to), else the token's own.
 */
export function servedGroup(ctx: RelayContext, auth: TokenAuth, group: string, model: string): string {
  const route = autoRoute(ctx, auth, model);
  return route ? routeGroup(route) : group;
}

/** The group a call of this route is admitted in: the first serving one ('auto' itself when none serves). */
export function routeGroup(route: AutoRoute): string {
  return route.groups[route.index] ?? AUTO_GROUP;
}

/** The index of the first group at or after `from` with a channel for the model; groups.length when none. */
function servingFrom(ctx: RelayContext, groups: string[], model: string, from: number): number {
  let i = from;
  while (i < groups.length && ctx.channelCache.inputLimit(groups[i]!, model) === undefined) i++;
  return i;
}

/**
 * The price an auto call's hold is planned at: its first group's, or with cross_group_retry the dearest of the
 * groups serving the model that it may move on to (recorded as the route's heldRatio).
 */
export function holdPrice(ctx: RelayContext, auth: TokenAuth, route: AutoRoute, model: string, first: ResolvedPrice) {
  let dearest = first;
  if (route.cross)
    for (let i = servingFrom(ctx, route.groups, model, route.index + 1); i < route.groups.length;) {
      const price = forRequest(
        resolvePrice(ctx.options, model, route.groups[i]!, auth.acceptUnsetRatio),
        requestOf(first),
      );
      if (price && price.groupRatio > dearest.groupRatio) dearest = price;
      i = servingFrom(ctx, route.groups, model, i + 1);
    }
  route.heldRatio = dearest.groupRatio;
  return dearest;
}

/** What an auto call's channel loop keeps: its group, price and the attempt its group's retries started at. */
export interface AutoCallState {
  auth: TokenAuth;
  group: string;
  model: string;
  price: ResolvedPrice;
  tried: Set<number>;
  prompt: number;
  /** The attempt the current group's retry budget started at (lifecycle.ts tryChannels reads it). */
  firstAttempt?: number;
  settings: { retry: { attempts: number } };
}

/**
 * The channel for `attempt` of an auto call: in its group at the group's own retry count; with cross-group retry,
 * in the next serving group when this one has no untried channel left, and, on the group's last attempt, the next
 * attempt is moved to the next group's fresh budget.
 */
export function nextAutoChannel(
  ctx: RelayContext,
  s: AutoCallState,
  route: AutoRoute,
  attempt: number,
): ChannelChoice | undefined {
  if (route.spent) {
    route.spent = false;
    if (!moveOn(ctx, s, route, attempt)) return undefined;
  }
  const first = s.firstAttempt ?? 0;
  const choice = nextChannel(ctx, s.group, s.model, s.tried, attempt - first, s.prompt);
  if (!route.cross) return choice;
  if (!choice) return moveOn(ctx, s, route, attempt) ? nextAutoChannel(ctx, s, route, attempt) : undefined;
  // This group's last attempt: a failure of it goes on in the next group (new-api's priorityRetry >= RetryTimes),
  // whose budget the loop then counts from the next attempt.
  if (attempt - first + 1 >= s.settings.retry.attempts) {
    const i = servingFrom(ctx, route.groups, s.model, route.index + 1);
    if (i < route.groups.length) {
      route.spent = true;
      s.firstAttempt = attempt + 1;
    }
  }
  return choice;
}

/**
 * Moves an auto call to the next group serving its model and priced no higher than its hold (price at that group's
 * ratio); false when none is left.
 */
function moveOn(ctx: RelayContext, s: AutoCallState, route: AutoRoute, attempt: number): boolean {
  const held = (route.heldRatio ??= s.price.groupRatio);
  for (let i = servingFrom(ctx, route.groups, s.model, route.index + 1); i < route.groups.length;) {
    const group = route.groups[i]!;
    const price = forRequest(resolvePrice(ctx.options, s.model, group, s.auth.acceptUnsetRatio), requestOf(s.price));
    if (price && price.groupRatio <= held) {
      route.index = i;
      s.group = group;
      s.price = price;
      s.firstAttempt = attempt;
      return true;
    }
    i = servingFrom(ctx, route.groups, s.model, i + 1);
  }
  return false;
}
