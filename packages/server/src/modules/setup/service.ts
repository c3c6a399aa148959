import { ErrorCode, Role } from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import { coded, conflict } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import type { OptionsService } from '../../core/options/service.js';
import type { UsersService } from '../users/service.js';

/** The super administrator's opening quota, as new-api gives it: a fresh install can call a model at once. */
export const ROOT_START_QUOTA = 100_000_000;

/** First-run setup: creates the root user once. The setups row with id 1 is the atomic claim. */
export class SetupService {
  private done = false;

  constructor(
    private readonly db: Db,
    private readonly users: UsersService,
    private readonly options: OptionsService,
    private readonly version: string,
  ) {}

  /** Reads the stored state; an imported database with a root user but no setup row counts as not set up. */
  async load(): Promise<void> {
    const row = await this.db.kysely.selectFrom('setups').select('id').executeTakeFirst();
    this.done = row !== undefined;
  }

  isDone(): boolean {
    return this.done;
  }

  async state(): Promise<{ status: boolean; root_init: boolean; database_type: string }> {
    await this.load();
    return { status: this.done, root_init: (await this.users.store.countRoots()) > 0, database_type: this.db.dialect };
  }

  async run(input: {
    username: string;
    password: string;
    SelfUseModeEnabled: boolean;
    DemoSiteEnabled: boolean;
  }): Promise<void> {
    if (input.SelfUseModeEnabled && input.DemoSiteEnabled)
      throw coded(ErrorCode.SetupModeConflict, 'choose either self-use mode or demo site, not both');
    try {
      await this.db.kysely
        .insertInto('setups')
        .values({ id: 1, version: this.version, initialized_at: nowSeconds() })
        .execute();
    } catch {
      this.done = true;
      throw conflict('the system is already initialized', ErrorCode.SetupDone);
    }
    try {
      if ((await this.users.store.countRoots()) === 0) {
        await this.users.create({
          username: input.username,
          password: input.password,
          role: Role.Root,
          display_name: 'Root User',
          quota: ROOT_START_QUOTA,
        });
      }
      await this.options.set('SelfUseModeEnabled', String(input.SelfUseModeEnabled));
      await this.options.set('DemoSiteEnabled', String(input.DemoSiteEnabled));
    } catch (err) {
      await this.db.kysely.deleteFrom('setups').where('id', '=', 1).execute();
      throw err;
    }
    this.done = true;
  }
}
