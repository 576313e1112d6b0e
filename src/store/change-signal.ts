// The cross-process change signal: a number per process that moves whenever the shared data may
// have changed, by this process or by any other on the same database (`tidings serve --workers`,
// a CLI beside the server, several machines on one PostgreSQL). What a process keeps in memory
// from the store (the Reader API's catalogs and item bodies, the search article table, "the
// backlog is empty") is revalidated only when the number moved since it was read, so an unchanged
// database costs no round trip per request, and a change anywhere is seen at the next request.
//
// - SQLite: `PRAGMA data_version` moves when another connection (process) commits, and then the
//   counters of migration 195 say whether that commit wrote anything a cache reads;
//   `total_changes()` moves when this connection writes. Evaluated when asked (about a microsecond
//   while nothing moved): no timer, no lag.
// - PostgreSQL: a dedicated connection LISTENs on `tidings_changes`; triggers (migration 086)
//   NOTIFY at the commit of a transaction that moved a version the caches check. This process's
//   own writes move the number at once (the pool counts them), so it never waits on its own
//   notification. Another process's change is seen once its notification arrives (delivered at
//   its commit; well under a millisecond on one host). While the listening connection is not up
//   (starting, lost), every call returns a new number: callers revalidate each time, as without
//   a signal.
//
// Callers take the number BEFORE reading what they cache and keep it with the value; a change
// during the read then moves the number past it.
export interface ChangeSignal {
  /** Moves whenever the store may have changed since the last call returned the same number. */
  generation(): number;
  close(): Promise<void>;
}

/** A value read from the store, read again only when the change signal moved. */
export class ChangeGated<T> {
  private readonly signal: ChangeSignal;
  private readonly read: () => Promise<T>;
  private value: T | undefined;
  private at = Number.NaN;

  constructor(signal: ChangeSignal, read: () => Promise<T>) {
    this.signal = signal;
    this.read = read;
  }

  async get(): Promise<T> {
    const now = this.signal.generation();
    if (now === this.at) return this.value as T;
    const value = await this.read();
    this.value = value;
    this.at = now;
    return value;
  }
}
