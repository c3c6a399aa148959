/**
 * Holds on a user's wallet for a spend made outside the relay (a plan bought with wallet quota): the live balance
 * (memory or Redis ledger) keeps the amount from concurrent calls while the database takes it, then the hold ends.
 * The relay binds the ledger at start-up; before (or without a relay) a hold is granted without one, and the
 * database's own conditional statement still never takes a wallet below 0.
 */
export type WalletHold = (userId: number, amount: number) => Promise<{ release(): Promise<void> } | undefined>;

const unheld: WalletHold = () => Promise.resolve({ release: () => Promise.resolve() });

export class WalletHolds {
  private impl: WalletHold = unheld;

  bind(impl: WalletHold): void {
    this.impl = impl;
  }

  /** Holds `amount` of the user's live balance; undefined when the balance has less. */
  hold(userId: number, amount: number): ReturnType<WalletHold> {
    return this.impl(userId, amount);
  }
}
