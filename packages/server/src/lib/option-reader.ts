import type { OptionKey } from '@tollway/shared';

/** Reading the saved options (core's OptionsService is one); the ground takes this, never the service. */
export interface OptionReader {
  get(key: OptionKey): string;
  bool(key: OptionKey): boolean;
  num(key: OptionKey): number;
  json<T>(key: OptionKey): T;
}
