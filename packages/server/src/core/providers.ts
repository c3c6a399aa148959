import type { Logger } from 'pino';

/** Where the detail of a refused upstream answer is written (the caller only gets a short message). */
export type DetailLog = Pick<Logger, 'warn'>;

/** One upstream as channel management reaches it: the channel's type, base URL (may be empty) and a key. */
export interface UpstreamQuery {
  type: number;
  baseUrl: string;
  key: string;
}

/**
 * What channel management needs from the providers (the relay's registry implements it; set on AppContext at
 * start-up), so modules never import the relay. Checks throw an Error whose message the caller shows.
 */
export interface ProviderCatalog {
  /** Keys of this type are one JSON document each (may span lines; a batch is a JSON array; no multi-key mode). */
  jsonKeys(type: number): boolean;
  /** Refuses a key that cannot work for the type (its key format, or e.g. an unusable service account). */
  checkKey(type: number, key: string): void;
  /** Refuses a channel `other` field the type cannot read. */
  checkOther(type: number, other: string): void;
  /** Model ids the upstream lists ("fetch models"). */
  listModels(q: UpstreamQuery, log?: DetailLog): Promise<string[]>;
  /** Whether the type has a balance query. */
  hasBalance(type: number): boolean;
  /** The upstream's remaining balance (the provider's currency, USD where it has one). */
  queryBalance(q: UpstreamQuery): Promise<number>;
}
