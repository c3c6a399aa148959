import crypto from 'node:crypto';
import { ChannelType, channelTypeById, ErrorCode } from '@tollway/shared';
import { request, type Dispatcher } from 'undici';
import type { AppContext } from '../../context.js';
import { readCodexCredential, refreshTokenOf, type CodexCredential } from '../../core/codex-credential.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { ApiError, coded } from '../../lib/errors.js';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy, OutboundBlockedError } from '../../lib/outbound-guard.js';
import { readCapped } from '../../lib/read-capped.js';
import { perContext } from '../../per-context.js';
import type { ChannelRow } from '../../core/routing/channel-row.js';
import {
  exchangeCode,
  identityOf,
  newPkceFlow,
  parseSignInInput,
  refreshTokens,
  type CodexTokens,
} from './codex-auth.js';

/** How long a started sign-in waits for its redirected address. */
export const CODEX_SIGN_IN_TTL_MS = 10 * 60_000;
/** Administrators with sign-ins pending at once (a flood evicts the least recently used). */
export const CODEX_SIGN_IN_ADMINS_MAX = 1000;
/** Pending sign-ins per administrator (one per channel, and one for a channel not yet created). */
export const CODEX_SIGN_INS_PER_ADMIN = 5;
/** A key renewed this recently and refused again is not renewed again by the relay (the refusal is not expiry). */
export const CODEX_RENEW_PAUSE_MS = 60_000;
/** Channels whose last renewal time is remembered. */
const RENEWALS_MAX = 10_000;
const USAGE_PATH = '/backend-api/wham/usage';
const USAGE_TIMEOUT_MS = 15_000;
const USAGE_MAX_BYTES = 256 * 1024;

interface PendingSignIn {
  state: string;
  verifier: string;
  expiresAt: number;
}

/** What a sign-in or a refresh reports (never a token). */
export interface CodexCredentialInfo {
  account_id: string;
  email: string;
  expires_at: string;
  last_refresh: string;
}

/** new-api's answer of GET /api/channel/:id/codex/usage: the backend's document as it is, and its status. */
export interface CodexUsageAnswer {
  success: boolean;
  message: string;
  upstream_status: number;
  data: unknown;
}

/** RFC 3339 in UTC without fractions, as new-api writes the times of the credential. */
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const sameText = (a: string, b: string): boolean => {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
};

const infoOf = (c: CodexCredential): CodexCredentialInfo => ({
  account_id: c.account_id,
  email: c.email ?? '',
  expires_at: c.expired ?? '',
  last_refresh: c.last_refresh ?? '',
});

/** The credential stored for new tokens: earlier fields kept, the tokens, times and (when known) identity new. */
function credentialFrom(tokens: CodexTokens, before?: CodexCredential): CodexCredential {
  const id = identityOf(tokens);
  const c: CodexCredential = {
    ...before,
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
    account_id: before?.account_id || id.accountId,
    last_refresh: rfc3339(Date.now()),
    expired: rfc3339(tokens.expiresAt),
    type: 'codex',
  };
  if (tokens.idToken) c.id_token = tokens.idToken;
  if (!c.email && id.email) c.email = id.email;
  return c;
}

/**
 * Codex channels' OAuth credential (new-api's /api/channel/…/codex/… routes): a PKCE sign-in whose state and
 * verifier stay in this node's memory (bounded, expiring, never logged), the refresh that renews the tokens (by
 * hand, or by the relay when the backend refuses an expired one) and the backend's usage document. The
 * credential is written through the channels service (sealed at rest, routing cache reloaded) and never answered.
 */
export class CodexOAuth {
  private readonly pending = new BoundedMap<number, Map<number, PendingSignIn>>({
    maxEntries: CODEX_SIGN_IN_ADMINS_MAX,
    ttlMs: CODEX_SIGN_IN_TTL_MS,
  });
  /** Refreshes under way by channel id (a refresh token is single-use: concurrent callers share one). */
  private readonly refreshing = new Map<number, Promise<CodexCredential>>();
  /** When the relay last renewed a channel's key, by channel id. */
  private readonly renewedAt = new BoundedMap<number, number>({
    maxEntries: RENEWALS_MAX,
    ttlMs: CODEX_RENEW_PAUSE_MS,
  });

  constructor(
    private readonly ctx: Pick<AppContext, 'config' | 'channels' | 'log'>,
    private readonly usageDispatcher: Dispatcher,
  ) {}

  private get authBase(): string {
    return this.ctx.config.codexOAuthBaseUrl;
  }

  /** A Codex channel; refused for a channel of another type. */
  async codexChannel(id: number): Promise<ChannelRow> {
    const row = await this.ctx.channels.get(id);
    if (row.type !== ChannelType.Codex)
      throw coded(ErrorCode.CodexOnly, 'this operation is only supported for Codex channels');
    return row;
  }

  private credentialOf(row: ChannelRow): CodexCredential {
    const c = readCodexCredential(row.key.trim());
    if (typeof c === 'string')
      throw coded(ErrorCode.CodexCredentialInvalid, `the channel key is not a usable Codex credential: ${c}`, {
        reason: c,
      });
    return c;
  }

  /** Starts a sign-in (for channel `channelId`, 0: a channel not yet created): the address to open. */
  async start(adminId: number, channelId: number): Promise<{ authorize_url: string }> {
    if (channelId) await this.codexChannel(channelId);
    const flow = newPkceFlow(this.authBase);
    const now = Date.now();
    const flows = this.pending.get(adminId, now) ?? new Map<number, PendingSignIn>();
    flows.delete(channelId);
    for (const [id, p] of flows) if (p.expiresAt <= now) flows.delete(id);
    while (flows.size >= CODEX_SIGN_INS_PER_ADMIN) flows.delete(flows.keys().next().value!);
    flows.set(channelId, { state: flow.state, verifier: flow.verifier, expiresAt: now + CODEX_SIGN_IN_TTL_MS });
    this.pending.set(adminId, flows, CODEX_SIGN_IN_TTL_MS, now);
    return { authorize_url: flow.authorizeUrl };
  }

  /**
   * Completes a sign-in with the redirected address the administrator pasted: the state must be the one started,
   * the code is exchanged with its verifier. For a channel the credential replaces its key; without one the
   * credential is answered for the new channel's key field (as new-api's console expects).
   */
  async complete(
    adminId: number,
    channelId: number,
    input: string,
  ): Promise<CodexCredentialInfo & ({ channel_id: number } | { key: string })> {
    if (channelId) await this.codexChannel(channelId);
    const { code, state } = parseSignInInput(input);
    if (!code || !state)
      throw coded(ErrorCode.CodexSignInInputInvalid, 'paste the whole redirected address (with code and state)');
    const flows = this.pending.get(adminId);
    const started = flows?.get(channelId);
    if (!started || started.expiresAt <= Date.now())
      throw coded(ErrorCode.CodexSignInNotStarted, 'the sign-in was not started or has expired');
    if (!sameText(state, started.state)) throw coded(ErrorCode.CodexSignInStateMismatch, 'state mismatch');
    flows!.delete(channelId);
    const tokens = await exchangeCode(this.authBase, code, started.verifier);
    const cred = credentialFrom(tokens);
    if (!cred.account_id)
      throw coded(ErrorCode.CodexSignInFailed, 'Codex sign-in failed: the tokens name no ChatGPT account', {
        reason: 'the tokens name no ChatGPT account',
      });
    if (!channelId) return { key: JSON.stringify(cred), ...infoOf(cred) };
    await this.ctx.channels.update({ id: channelId, key: JSON.stringify(cred) });
    return { channel_id: channelId, ...infoOf(cred) };
  }

  /** Refreshes a channel's tokens with its refresh token and stores them (concurrent calls share one refresh). */
  private refreshStored(id: number): Promise<CodexCredential> {
    let p = this.refreshing.get(id);
    if (!p) {
      p = (async () => {
        const before = this.credentialOf(await this.codexChannel(id));
        const rt = refreshTokenOf(before);
        if (!rt) throw coded(ErrorCode.CodexRefreshTokenMissing, 'the channel credential has no refresh_token');
        const cred = credentialFrom(await refreshTokens(this.authBase, rt), before);
        await this.ctx.channels.update({ id, key: JSON.stringify(cred) });
        return cred;
      })().finally(() => this.refreshing.delete(id));
      this.refreshing.set(id, p);
    }
    return p;
  }

  /** POST /api/channel/:id/codex/refresh: new tokens stored; answers what they are for and until when. */
  async refresh(id: number): Promise<CodexCredentialInfo & Record<string, unknown>> {
    const cred = await this.refreshStored(id);
    const row = await this.codexChannel(id);
    return { ...infoOf(cred), channel_id: row.id, channel_type: row.type, channel_name: row.name };
  }

  /**
   * For the relay, after the backend refused `key` (401): the renewed key to retry with, or undefined (no refresh
   * token, or the refresh failed). A key already renewed by another call is answered without a second refresh; a
   * channel renewed less than a minute ago is not renewed again (its fresh token is refused for another reason).
   */
  async renew(channelId: number, key: string): Promise<string | undefined> {
    const used = readCodexCredential(key);
    if (typeof used === 'string' || !refreshTokenOf(used)) return undefined;
    try {
      const inFlight = this.refreshing.get(channelId);
      if (inFlight) return JSON.stringify(await inFlight);
      const stored = (await this.codexChannel(channelId)).key.trim();
      if (stored !== key.trim() && typeof readCodexCredential(stored) !== 'string') return stored;
      if (this.renewedAt.has(channelId)) return undefined;
      this.renewedAt.set(channelId, Date.now());
      return JSON.stringify(await this.refreshStored(channelId));
    } catch (err) {
      const reason = err instanceof ApiError ? err.message : 'unexpected error';
      this.ctx.log.warn({ channelId, reason }, 'Codex credential refresh failed');
      return undefined;
    }
  }

  private async fetchUsage(row: ChannelRow, c: CodexCredential): Promise<{ status: number; text: string }> {
    const base = (row.base_url || channelTypeById.get(ChannelType.Codex)!.baseUrl).replace(/\/+$/, '');
    try {
      const res = await request(`${base}${USAGE_PATH}`, {
        method: 'GET',
        dispatcher: this.usageDispatcher,
        headers: {
          authorization: `Bearer ${c.access_token.trim()}`,
          'chatgpt-account-id': c.account_id.trim(),
          accept: 'application/json',
          originator: 'codex_cli_rs',
        },
        headersTimeout: USAGE_TIMEOUT_MS,
        bodyTimeout: USAGE_TIMEOUT_MS,
        signal: AbortSignal.timeout(USAGE_TIMEOUT_MS),
      });
      return { status: res.statusCode, text: await readCapped(res.body, USAGE_MAX_BYTES) };
    } catch (err) {
      if (err instanceof OutboundBlockedError)
        throw coded(ErrorCode.CodexUsageFailed, `Codex usage: ${err.message}`, { reason: err.message });
      const code = (err as { code?: unknown }).code;
      const reason = `cannot reach the backend${typeof code === 'string' ? ` (${code})` : ''}`;
      throw coded(ErrorCode.CodexUsageFailed, `Codex usage: ${reason}`, { reason });
    }
  }

  /**
   * GET /api/channel/:id/codex/usage: the ChatGPT backend's usage and rate-limit document (through the outbound
   * guard); a refused token is refreshed once when the credential has a refresh token, as new-api does.
   */
  async usage(id: number): Promise<CodexUsageAnswer> {
    const row = await this.codexChannel(id);
    let cred = this.credentialOf(row);
    let got = await this.fetchUsage(row, cred);
    if ((got.status === 401 || got.status === 403) && refreshTokenOf(cred)) {
      cred = await this.refreshStored(id);
      got = await this.fetchUsage(row, cred);
    }
    let data: unknown = got.text;
    try {
      data = JSON.parse(got.text);
    } catch {
      /* not JSON: answered as text */
    }
    const ok = got.status >= 200 && got.status < 300;
    return { success: ok, message: ok ? '' : `upstream status: ${got.status}`, upstream_status: got.status, data };
  }
}

export const codexOAuthOf = perContext(
  (ctx: AppContext) =>
    new CodexOAuth(
      ctx,
      guardedDispatcher(() => fetchPolicy(ctx.options)),
    ),
);
