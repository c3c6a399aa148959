import type { Insertable } from 'kysely';
import type { MidjourneysTable } from '../../src/db/schema.js';

/** Submitted at this time (epoch seconds), started a second later, finished at +30 s. */
export const MJ_T0 = 1_700_000_000;

/** A finished drawing task row written straight to the table by tests; `over` sets the rest. */
export function mjRow(over: Partial<Insertable<MidjourneysTable>>): Insertable<MidjourneysTable> {
  return {
    code: 1,
    user_id: 0,
    action: 'IMAGINE',
    mj_id: '',
    prompt: 'a cat',
    prompt_en: 'a cat',
    description: '',
    submit_time: MJ_T0,
    start_time: MJ_T0 + 1,
    finish_time: MJ_T0 + 30,
    image_url: 'https://img.example/cat.png',
    status: 'SUCCESS',
    progress: '100%',
    fail_reason: '',
    channel_id: 1,
    quota: 5000,
    // Every row names the columns some row sets (SQLite's multi-row insert has no DEFAULT).
    video_url: '',
    private_data: '',
    ...over,
  };
}
