// Bounded concurrency for fetching: a global limit so a refresh of thousands of feeds neither
// floods the network nor piles up parse/DB work, and a per-host limit so one server hosting
// many feeds (a blog platform) is not hammered. A dozen lines did not justify a dependency.

export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** Waiters that go after every one in `waiting` (runLater). */
  private readonly waitingLater: (() => void)[] = [];
  readonly limit: number;
  constructor(limit: number) {
    this.limit = Math.max(1, limit);
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.runIn(this.waiting, fn);
  }

  /**
   * Like run, but a freed slot goes to every waiter of run() first, whenever they came: work that
   * can wait (article pages) never holds up the work a refresh waits on (its feeds) on one host.
   */
  runLater<T>(fn: () => Promise<T>): Promise<T> {
    return this.runIn(this.waitingLater, fn);
  }

  private async runIn<T>(queue: (() => void)[], fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => queue.push(r));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift() ?? this.waitingLater.shift();
      if (next) next();
      else this.active--;
    }
  }

  get idle(): boolean {
    return this.active === 0 && this.waiting.length === 0 && this.waitingLater.length === 0;
  }
}

/**
 * One semaphore per host (created on demand, dropped when idle), inside one global semaphore.
 * Background work (article pages) has global slots of its own, half as many: a page whose host
 * never answers must not hold a slot a feed of the refresh waits for. Hosts are shared: a site
 * gets no more fetches at once, feeds and pages together, than the per-host limit, and a place
 * freed on a host goes to a waiting feed before any waiting page. In a first refresh of feeds
 * whose articles live on the feeds' host (a newspaper's section feeds; every bench feed), the
 * teaser check's pages queued first and each feed fetch waited behind them.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, Semaphore>();
  private readonly global: Semaphore;
  private readonly background: Semaphore;
  private readonly perHost: number;
  constructor(globalLimit: number, perHost: number) {
    this.global = new Semaphore(globalLimit);
    this.background = new Semaphore(Math.ceil(globalLimit / 2));
    this.perHost = perHost;
  }

  /** Host slot first, then a global slot: a queue of one busy host never holds global slots. */
  run<T>(host: string, fn: () => Promise<T>, background = false): Promise<T> {
    let sem = this.hosts.get(host);
    if (!sem) {
      sem = new Semaphore(this.perHost);
      this.hosts.set(host, sem);
    }
    const s = sem;
    return (background ? s.runLater(() => this.background.run(fn)) : s.run(() => this.global.run(fn))).finally(() => {
      if (s.idle) this.hosts.delete(host);
    });
  }
}
