import type { AffinityMatch } from '../../core/routing/affinity-rules.js';
import type { PinnedChoice } from '../../core/routing/affinity.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import type { RelayRequest } from '../entry/request.js';
import type { CallUsage } from '../billing/usage.js';
import type { ChannelChoice } from './admit.js';
import type { RelayContext } from './services.js';
import type { InboundCall } from './types.js';

/** A call's session as affinity sees it: the rule's match and the pinned channel found usable (if any). */
export interface CallAffinity {
  match: AffinityMatch;
  /** The session's pin, when it can serve this call: attempt 0 goes there. */
  pinned: PinnedChoice | undefined;
}

const NOTHING_TRIED: ReadonlySet<number> = new Set();
const OPENAI_CACHE_MODE = 'cached_over_prompt';
const ANTHROPIC_CACHE_MODE = 'cached_over_prompt_plus_cached';

/**
 * The call's session and its usable pin, looked up once before the channel loop (a Redis read in a cluster).
 * Undefined when no rule recognises the call — the common case costs the rules' model checks only.
 */
export function affinityFor(
  ctx: RelayContext,
  req: RelayRequest,
  call: InboundCall,
  auth: TokenAuth,
  group: string,
  inputTokens: number,
): Promise<CallAffinity> | undefined {
  const path = req.url.split('?', 1)[0]!;
  const match = ctx.affinity.match(
    { model: call.model, path, headers: req.headers, body: call.body },
    {
      tokenId: auth.tokenId,
      userId: auth.userId,
      tokenName: auth.name,
      tokenGroup: auth.group,
      username: auth.username,
      userGroup: auth.userGroup,
    },
    group,
  );
  if (!match) return undefined;
  return ctx.affinity.pinned(match, NOTHING_TRIED, inputTokens).then((pinned) => ({ match, pinned }));
}

/** Attempt 0 of a call with a usable pin: the pinned channel and key (recorded as tried), else undefined. */
export function pinnedAttempt(a: CallAffinity | undefined, tried: Set<number>): ChannelChoice | undefined {
  const pinned = a?.pinned;
  if (!pinned || tried.has(pinned.ch.id)) return undefined;
  tried.add(pinned.ch.id);
  return { ch: pinned.ch, keyIndex: pinned.keyIndex, mapped: pinned.mapped };
}

/**
 * An attempt on the pinned channel failed: under a rule that skips retries the pin goes and the call ends there
 * (true); else the call moves on (false) and the pin is decided when a channel serves it.
 */
export function pinFailed(ctx: RelayContext, a: CallAffinity | undefined, choice: ChannelChoice): boolean {
  if (!a?.pinned || a.pinned.ch !== choice.ch || !a.match.rule.skipRetry) return false;
  ctx.affinity.failed(a.match);
  return true;
}

/**
 * A served call: its channel's prompt-cache counts (every call), and for a session the pin (moved to the serving
 * channel and key, or its TTL renewed) and the session's usage statistics.
 */
export function affinityServed(
  ctx: RelayContext,
  a: CallAffinity | undefined,
  choice: ChannelChoice,
  usage: CallUsage,
  mappedModel: string,
): void {
  const cached = usage.cachedTokens ?? 0;
  const anthropic = usage.semantic === 'anthropic';
  const prompt = anthropic ? usage.promptTokens + cached + (usage.cacheCreationTokens ?? 0) : usage.promptTokens;
  ctx.affinity.promptCache.record(choice.ch.id, prompt, cached);
  if (!a) return;
  const wasPinned = a.pinned === undefined ? undefined : a.pinned.ch === choice.ch;
  ctx.affinity.served(a.match, wasPinned, {
    channelId: choice.ch.id,
    keyIndex: choice.keyIndex ?? 0,
    model: mappedModel,
  });
  ctx.affinity.usage.observe({
    rule: a.match.rule.name,
    group: a.match.group,
    fingerprint: a.match.fingerprint,
    windowMs: a.match.rule.ttlMs,
    mode: anthropic ? ANTHROPIC_CACHE_MODE : OPENAI_CACHE_MODE,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: cached,
  });
}

/** What the usage log's admin_info says of the session (new-api's `channel_affinity` entry). */
export function affinityLogInfo(
  a: CallAffinity | undefined,
  choice: ChannelChoice,
): { channel_affinity: Record<string, unknown> } | undefined {
  if (!a) return undefined;
  const m = a.match;
  const info = {
    reason: m.rule.name,
    rule_name: m.rule.name,
    using_group: m.group,
    selected_group: m.group,
    model: m.model,
    channel_id: choice.ch.id,
    key_index: choice.keyIndex,
    pinned: a.pinned !== undefined && a.pinned.ch === choice.ch,
    key_source: m.source.type,
    key_key: m.source.key ?? '',
    key_path: m.source.path ?? '',
    key_hint: m.hint,
    key_fp: m.fingerprint,
  };
  return { channel_affinity: info };
}
