// The due feeds of one refresh pass, queued per host in memory, so that claiming stays linear in
// the feeds however many share a host. Each fetch that ends frees a place on one host: only that
// host's next feed is asked for, instead of the whole list of feeds left waiting (with 1,000 feeds
// on one host and 4 places, claiming the waiting list again after every fetch took 11.7 s of a
// 13 s refresh: BENCHMARKS.md, Refresh claims). Hosts take turns in the order their first feed is
// due. The database's claims stay the authority across processes (refresh-claims.ts): this only
// avoids asking for feeds the process knows it has no place for.

/** host[:port] of a feed URL, lower-cased, as the feeds.fetch_host column has it (migration 091). */
export function fetchHostOf(url: string): string {
  const rest = url.slice(url.indexOf('://') + 3);
  const end = rest.search(/[/?#]/);
  return (end < 0 ? rest : rest.slice(0, end)).toLowerCase();
}

export interface HostQueue {
  readonly host: string;
  /** The host's due feeds, most overdue first; those before `head` were asked for. */
  readonly ids: number[];
  head: number;
  /** Feeds of the host claimed by this process and not yet done (waiting or being fetched). */
  active: number;
  /** Feeds of the host in the claim being made. */
  asking: number;
  /** In the ready list (an entry there may be stale: a blocked host's is skipped). */
  inReady: boolean;
  /** A claim found the host full, or a feed of it held elsewhere: not asked for until unblockAll. */
  blocked: boolean;
}

export class HostQueues {
  private readonly byId = new Map<number, HostQueue>();
  private readonly asking = new Set<number>();
  private readonly blockedHosts = new Set<HostQueue>();
  private ready: HostQueue[] = [];
  private readyHead = 0;
  private readonly perHost: number;
  /** Feeds not yet asked for. */
  pending = 0;

  constructor(feeds: readonly { id: number; url: string }[], perHost: number) {
    this.perHost = perHost;
    const byHost = new Map<string, HostQueue>();
    for (const f of feeds) {
      const host = fetchHostOf(f.url);
      let q = byHost.get(host);
      if (!q) {
        q = { host, ids: [], head: 0, active: 0, asking: 0, inReady: false, blocked: false };
        byHost.set(host, q);
        this.ready.push(q);
        q.inReady = true;
      }
      q.ids.push(f.id);
      this.byId.set(f.id, q);
    }
    this.pending = feeds.length;
  }

  /** Whether some host has feeds left and a free place. */
  hasReady(): boolean {
    while (this.readyHead < this.ready.length && this.ready[this.readyHead]!.blocked)
      this.ready[this.readyHead++]!.inReady = false;
    return this.readyHead < this.ready.length;
  }

  /**
   * Up to `max` feeds to claim, one per host in turn, each host giving no more than its free
   * places; every id asked for must be answered (`answered`) before the next ask.
   */
  ask(max: number): number[] {
    const ids: number[] = [];
    while (ids.length < max && this.readyHead < this.ready.length) {
      const q = this.ready[this.readyHead++]!;
      q.inReady = false;
      if (q.blocked) continue;
      if (q.active + q.asking >= this.perHost || q.head >= q.ids.length) continue;
      // One feed a turn: a process's fetch slots spread over the hosts, and the places left on
      // each host go to the other processes refreshing the same database.
      const id = q.ids[q.head++]!;
      ids.push(id);
      this.asking.add(id);
      q.asking++;
      this.pending--;
      // Still a place and feeds: back in line behind the other hosts.
      this.maybeReady(q);
    }
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
    return ids;
  }

  /** The claim of these ids came back: `claimed` are this process's now (ids of retries included). */
  answered(ids: readonly number[], claimed: ReadonlySet<number>): void {
    for (const id of ids) {
      const q = this.byId.get(id);
      if (!q) continue;
      if (this.asking.delete(id)) q.asking--;
      if (claimed.has(id)) q.active++;
      else this.maybeReady(q);
    }
  }

  /** The feed's host refused it (full elsewhere, or the feed is held elsewhere): leave the host until unblockAll. */
  block(id: number): void {
    const q = this.byId.get(id);
    if (!q || q.blocked) return;
    q.blocked = true;
    this.blockedHosts.add(q);
  }

  /** The retry of refused feeds: their hosts may be asked for again. */
  unblockAll(): void {
    for (const q of this.blockedHosts) {
      q.blocked = false;
      this.maybeReady(q);
    }
    this.blockedHosts.clear();
  }

  /** This process is done with a claimed feed: its host has a place again. */
  done(id: number): void {
    const q = this.byId.get(id);
    if (!q) return;
    q.active--;
    this.maybeReady(q);
  }

  private maybeReady(q: HostQueue): void {
    if (q.inReady || q.blocked || q.head >= q.ids.length || q.active + q.asking >= this.perHost) return;
    q.inReady = true;
    this.ready.push(q);
  }
}
