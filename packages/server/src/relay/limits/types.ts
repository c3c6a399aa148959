/** Where a limit is set: the API token, its user, the call's group, or the upstream channel. */
export type LimitLevel = 'token' | 'user' | 'group' | 'channel';

/** One level's limits for a call: requests and tokens per minute (0: none at this level). */
export interface LimitBucket {
  level: LimitLevel;
  /** Names the counter: token id, user id, group name, channel id. */
  id: string;
  rpm: number;
  tpm: number;
}

/** A level's counts in the window after the check (after this call's share when it was admitted). */
export interface BucketUse {
  requests: number;
  tokens: number;
}

/** What a check found: every bucket's counts, and which one refused the call (and on what) when one did. */
export interface LimitCheck {
  window: number;
  used: BucketUse[];
  refused?: { index: number; kind: 'requests' | 'tokens' };
}

/** Counts requests and tokens per bucket and window: in memory on one node, in Redis across a cluster. */
export interface LimitStore {
  /** Counts the call (one request, `tokens` tokens) in every bucket when all have room; nothing when one has not. */
  check(buckets: LimitBucket[], tokens: number, now: number): Promise<LimitCheck> | LimitCheck;
  /** Moves the token counts of an earlier window by `delta` (settlement), never below 0; fire and forget. */
  adjust(buckets: LimitBucket[], window: number, delta: number): void;
}
