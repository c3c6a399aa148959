import {
  ErrorCode,
  type CustomOAuthProvider,
  type CustomOAuthProviderBody,
  type CustomOAuthStatusEntry,
} from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/unique.js';
import { coded } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { fetchDiscoveryDocument } from '../oidc-discovery/service.js';
import { applyBody, blankSettings, checkSettings, toProvider, toStatusEntry } from './provider-rules.js';
import { CustomOAuthStore, type ProviderRow } from './store.js';

const notFound = () => coded(ErrorCode.CustomOAuthNotFound, 'OAuth provider not found', undefined, 404);
const slugTaken = () => coded(ErrorCode.CustomOAuthSlugTaken, 'this slug is already used', undefined, 409);

/** A provider with its client secret opened (for the sign-in's token exchange only; never answered). */
export type OpenedProvider = ProviderRow & { secret: string };

/** Root's providers: their settings (client secret sealed at rest, never answered), discovery, the login page's list. */
export class CustomOAuthProviders {
  readonly store: CustomOAuthStore;

  constructor(private readonly ctx: AppContext) {
    this.store = new CustomOAuthStore(ctx.db);
  }

  async list(): Promise<CustomOAuthProvider[]> {
    return (await this.store.list()).map(toProvider);
  }

  async get(id: number): Promise<CustomOAuthProvider> {
    return toProvider(await this.row(id));
  }

  async row(id: number): Promise<ProviderRow> {
    const row = await this.store.find(id);
    if (!row) throw notFound();
    return row;
  }

  async create(body: CustomOAuthProviderBody): Promise<CustomOAuthProvider> {
    const settings = checkSettings(applyBody(blankSettings(), body));
    if (await this.store.slugTaken(settings.slug)) throw slugTaken();
    const now = nowSeconds();
    let id: number;
    try {
      id = await this.store.insert({
        ...settings,
        client_secret: this.ctx.secretBox.seal(body.client_secret?.trim() ?? ''),
        created_at: now,
        updated_at: now,
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw slugTaken();
      throw err;
    }
    return this.get(id);
  }

  /**
   * Changes the body's present fields. Switching a provider off (or deleting it) takes its sign-in away: the
   * caller ends the sessions it opened (routes.ts).
   */
  async update(
    id: number,
    body: CustomOAuthProviderBody,
  ): Promise<{ provider: CustomOAuthProvider; before: ProviderRow }> {
    const before = await this.row(id);
    const { id: _id, created_at: _c, updated_at: _u, ...stored } = before;
    const settings = checkSettings(applyBody(stored, body));
    if (settings.slug !== before.slug && (await this.store.slugTaken(settings.slug, id))) throw slugTaken();
    const secret = body.client_secret?.trim();
    try {
      await this.store.update(id, {
        ...settings,
        client_secret: secret ? this.ctx.secretBox.seal(secret) : before.client_secret,
        updated_at: nowSeconds(),
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw slugTaken();
      throw err;
    }
    return { provider: await this.get(id), before };
  }

  /** Deletes the provider and its bindings; returns the users who held one. */
  async delete(id: number): Promise<number[]> {
    await this.row(id);
    return this.store.delete(id);
  }

  /** The enabled provider of `slug` and `kind` with its secret opened; refused when there is none. */
  async enabled(slug: string, kind: string): Promise<OpenedProvider> {
    const row = slug ? await this.store.findBySlug(slug.toLowerCase()) : undefined;
    if (!row || Number(row.enabled) !== 1 || row.kind !== kind)
      throw coded(
        ErrorCode.CustomOAuthDisabled,
        `sign-in method ${slug.slice(0, 64)} does not exist or is not enabled`,
        {
          provider: slug.slice(0, 64),
        },
      );
    return { ...row, secret: this.ctx.secretBox.open(row.client_secret) };
  }

  async statusEntries(): Promise<CustomOAuthStatusEntry[]> {
    return (await this.store.list(true)).map(toStatusEntry);
  }

  /** new-api's discovery answer: the document's URL and the document itself, read through the outbound guard. */
  async discover(wellKnownUrl: string, issuerUrl: string): Promise<{ well_known_url: string; discovery: unknown }> {
    const url = wellKnownUrl || (issuerUrl ? `${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration` : '');
    if (!url)
      throw coded(ErrorCode.CustomOAuthInvalid, 'fill in the discovery URL or the issuer URL first', {
        reason: 'well_known_url or issuer_url is required',
      });
    return { well_known_url: url, discovery: await fetchDiscoveryDocument(this.ctx, url) };
  }
}

export const customOAuthProvidersOf = perContext((ctx: AppContext) => new CustomOAuthProviders(ctx));
