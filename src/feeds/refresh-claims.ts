// Feed refresh claims: several processes on one database (`serve --workers`, cron'd `tidings
// refresh` beside a server, several machines on one PostgreSQL) share the refresh work without
// fetching a feed twice. A process claims due feeds in batches before fetching them; the claim
// lasts claimLeaseSeconds and is renewed every third of that while the process holds any, so a
// crashed process's feeds are due again once its claims run out. Claims expire by the database's
// clock, not each process's: machines whose clocks disagree never take a feed that is still held. A host never has more live
// claims, all processes together, than TIDINGS_PER_HOST_CONCURRENCY: since only claimed feeds are
// fetched, the per-host limit (also enforced in-process by the fetcher) holds across processes. A
// claim whose fetch has ended (fetchDone: the body is read, the parse and the store follow) keeps
// its feed but no longer its host's place.
// A process refused by a full host waits for it (for HOST_WAIT_MS, renewed by each retry): a place
// that comes free goes to the process that has waited longest, not back at once to the process
// whose fetch just ended there (which would keep a host's places with the first process forever).
import type { App } from '../runtime/app.ts';
import type { FeedRecord } from '../model/feed-record.ts';
import { perApp } from '../runtime/per-app.ts';
import { claimOwner, claimTiming } from '../runtime/claim-owner.ts';

/** How long a refused claim keeps its owner waiting for the host: past the longest retry wait (2 s, refresh.ts). */
export const HOST_WAIT_MS = 5_000;

export class FeedClaims {
  private readonly app: App;
  /** Who this process is in the claims (claimOwner): the feed's success or failure write can end its claim. */
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly held = new Set<number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(app: App) {
    this.app = app;
    this.owner = claimOwner(app);
    ({ leaseMs: this.leaseMs, renewMs: this.renewMs } = claimTiming(app));
    app.onClose(() => this.stopRenewing());
  }

  /** Claims the listed feeds still due by `dueBy` (Unix s); see RefreshClaimRepository.claimListed. */
  async claimListed(
    ids: readonly number[],
    dueBy: number,
  ): Promise<{ claimed: FeedRecord[]; held: number[]; hostFull: number[] }> {
    const r = await this.app.store.refreshClaims.claimListed(ids, this.owner, {
      dueBy,
      leaseMs: this.leaseMs,
      perHost: this.app.config.perHostConcurrency,
      hostWaitMs: HOST_WAIT_MS,
    });
    this.hold(r.claimed);
    return r;
  }

  /** The refresh pass is over: this process waits for no host (the holders may use all their places again). */
  async endWaits(): Promise<void> {
    await this.app.store.refreshClaims.endWaits(this.owner);
  }

  /** Claims one feed whatever its due time (refresh now); undefined when another holds it. */
  async claimOne(id: number): Promise<FeedRecord | undefined> {
    const f = await this.app.store.refreshClaims.claimOne(id, this.owner, this.leaseMs);
    if (f) this.hold([f]);
    return f;
  }

  /**
   * This process's fetch of a claimed feed has ended: the claim no longer counts against the
   * feed's host (other processes may fetch from it), while it still keeps the feed to this process
   * until its success or failure write.
   */
  async fetchDone(id: number): Promise<void> {
    if (this.held.has(id)) await this.app.store.refreshClaims.fetchDone(id, this.owner);
  }

  /**
   * Ends this process's claims on these feeds (done, or given back); feeds whose claim already
   * ended with their success or failure write (releasedWithRecord) cost no statement.
   */
  async release(ids: readonly number[]): Promise<void> {
    const still = ids.filter((id) => this.held.has(id));
    if (!still.length) return;
    for (const id of still) this.held.delete(id);
    if (!this.held.size) this.stopRenewing();
    await this.app.store.refreshClaims.release(still, this.owner);
  }

  /**
   * The feed's success or failure was written with `releaseClaimOf: owner` and committed: its
   * claim has ended in that write (1,000 single-row UPDATEs less in a 1,000-feed refresh).
   */
  releasedWithRecord(id: number): void {
    if (!this.held.delete(id)) return;
    if (!this.held.size) this.stopRenewing();
  }

  isClaimed(id: number): Promise<boolean> {
    return this.app.store.refreshClaims.isClaimed(id);
  }

  private hold(feeds: readonly FeedRecord[]): void {
    for (const f of feeds) this.held.add(f.id);
    if (this.held.size && !this.timer) {
      this.timer = setInterval(() => void this.renew(), this.renewMs);
      this.timer.unref();
    }
  }

  private async renew(): Promise<void> {
    try {
      await this.app.store.refreshClaims.renew(this.owner, this.leaseMs);
    } catch (err) {
      // The database is briefly unreachable: the claims have two more renewals before they run out.
      this.app.log.warn({ err }, 'could not renew feed refresh claims');
    }
  }

  private stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

export const feedClaims = perApp((app: App) => new FeedClaims(app));
