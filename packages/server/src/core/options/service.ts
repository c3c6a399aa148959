import {
  canAccessOption,
  defaultOptionValues,
  ErrorCode,
  isOptionKey,
  linkedOptionUpdates,
  normalizeOptionValue,
  optionAliases,
  optionAliasKeys,
  optionDefs,
  optionKeys,
  optionWriteRefusal,
  resolveOptionKey,
  settleStoredOptions,
  type OptionKey,
} from '@tollway/shared';
import { coded, refused } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { OptionsStore } from './store.js';

type Listener = (key: OptionKey, value: string) => void;

/** Options whose value is a credential: sealed at rest with CRYPTO_SECRET, never sent back to the console. */
export const secretOptionKeys: readonly OptionKey[] = optionKeys.filter(
  (k) => (optionDefs[k] as { secret?: boolean }).secret === true,
);
const isSecretOption = (key: OptionKey): boolean => (optionDefs[key] as { secret?: boolean }).secret === true;

/**
 * Options held in memory (read on every request without I/O), written through to the database,
 * and reloaded every SYNC_FREQUENCY seconds so other nodes' changes arrive.
 */
export class OptionsService {
  private values: Record<OptionKey, string> = defaultOptionValues();
  private readonly listeners: Listener[] = [];
  /** Parsed JSON values, dropped when the key changes (the relay reads ratio tables on every call). */
  private readonly parsed = new Map<OptionKey, unknown>();
  private readonly savedListeners: ((key: OptionKey) => void | Promise<void>)[] = [];

  /**
   * Secret options are opened here, once per load, and held in memory in plaintext. `secretBox` is also the
   * process's box for other stored secrets read next to options.
   */
  constructor(
    private readonly store: OptionsStore,
    readonly secretBox: SecretBox,
  ) {}

  async load(): Promise<void> {
    const next = defaultOptionValues();
    const rows = await this.store.all();
    for (const row of rows) {
      if (isOptionKey(row.key)) next[row.key] = isSecretOption(row.key) ? this.secretBox.open(row.value) : row.value;
    }
    settleStoredOptions(next, rows);
    const before = this.values;
    this.values = next;
    for (const k of optionKeys) if (before[k] !== next[k]) this.emit(k, next[k]);
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /**
   * Called after this node saved a key (used to tell other nodes, and to end the sessions of a switched-off
   * sign-in). A listener's promise is awaited before the save returns, so what it does is done when the caller
   * answers.
   */
  onSaved(listener: (key: OptionKey) => void | Promise<void>): void {
    this.savedListeners.push(listener);
  }

  private emit(key: OptionKey, value: string): void {
    this.parsed.delete(key);
    for (const l of this.listeners) l(key, value);
  }

  get(key: OptionKey): string {
    return this.values[key];
  }

  bool(key: OptionKey): boolean {
    return this.values[key] === 'true';
  }

  num(key: OptionKey): number {
    const n = Number(this.values[key]);
    return Number.isFinite(n) ? n : Number(optionDefs[key].default);
  }

  /** The parsed JSON value; callers must not mutate it (it is shared). */
  json<T>(key: OptionKey): T {
    if (this.parsed.has(key)) return this.parsed.get(key) as T;
    let value: unknown;
    try {
      value = JSON.parse(this.values[key]);
    } catch {
      value = JSON.parse(optionDefs[key].default);
    }
    this.parsed.set(key, value);
    return value as T;
  }

  /**
   * The options a caller of `role` may read (root all, an administrator the operation ones: see option-access in
   * shared), new-api's alias names included; secrets are never sent back.
   */
  list(role: number): { key: string; value: string }[] {
    const out: { key: string; value: string }[] = optionKeys.map((key) => ({
      key,
      value: isSecretOption(key) ? '' : this.values[key],
    }));
    for (const alias of optionAliasKeys) out.push({ key: alias, value: this.values[optionAliases[alias]] });
    return out.filter((o) => canAccessOption(role, o.key));
  }

  /** Refuses (403, answered 200 on /api) a write of an option the caller's role may not change. */
  assertWritable(role: number, key: string): void {
    if (resolveOptionKey(key) !== undefined && !canAccessOption(role, key))
      throw refused(`only the super administrator can change ${key}`, ErrorCode.OptionRootOnly, { key });
  }

  /** Validates (the write rules too), stores and applies one key (an alias stores its option); linked options follow. */
  async set(key: string, raw: unknown): Promise<void> {
    const res = optionWriteRefusal(key, raw) ?? normalizeOptionValue(key, raw);
    if (!res.ok) throw coded(res.code, res.message, res.params);
    const stored = resolveOptionKey(key)!;
    await this.write(stored, res.value);
    for (const [k, v] of linkedOptionUpdates(stored, res.value, (k) => this.values[k])) await this.write(k, v);
  }

  private async write(key: OptionKey, value: string): Promise<void> {
    await this.store.upsert(key, isSecretOption(key) ? this.secretBox.seal(value) : value);
    this.values[key] = value;
    this.emit(key, value);
    for (const l of this.savedListeners) await l(key);
  }

  /** Stores several keys at once (setup); each validated. */
  async setMany(entries: Record<string, unknown>): Promise<void> {
    for (const [k, v] of Object.entries(entries)) await this.set(k, v);
  }
}
