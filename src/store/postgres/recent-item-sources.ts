// The items this process just inserted, as it sent them, kept until its search indexer reads
// them (PgSearchIndex.itemSources): a first refresh of 1,000 feeds x 50 items sent every
// article's text to PostgreSQL and then read all of it back to index it (2 s of the server's
// time, and 60 MB of strings decoded again in the process). A kept row is used only while the
// item's row version is still the one inserted (its xmin, returned by the INSERT): any later
// UPDATE (the feed changed the entry, full text arrived, another process) makes a new version,
// and the indexer then reads the item from the database as before. Bounded: rows another process
// indexes are never asked for here, and the oldest leave first (10,000 rows: 20,000 raised a
// 1,000-feed refresh's peak RSS from 329-334 MB to 372-382 MB).
import type { SearchItemSource } from '../repositories.ts';

export type RecentItemSource = Omit<SearchItemSource, 'feedUrl' | 'feedSiteUrl'>;

export class RecentItemSources {
  private readonly rows = new Map<number, { xmin: string; row: RecentItemSource }>();
  private readonly max: number;

  constructor(max = 10_000) {
    this.max = max;
  }

  get size(): number {
    return this.rows.size;
  }

  /** An item inserted by this process, in the row version `xmin` (rolled back: never asked for). */
  put(xmin: string, row: RecentItemSource): void {
    this.rows.set(row.id, { xmin, row });
    if (this.rows.size > this.max) {
      for (const id of this.rows.keys()) {
        this.rows.delete(id);
        if (this.rows.size <= this.max) break;
      }
    }
  }

  /** The item as inserted if its current row version is still that one; forgotten either way. */
  take(id: number, xmin: string): RecentItemSource | undefined {
    const kept = this.rows.get(id);
    if (!kept) return undefined;
    this.rows.delete(id);
    return kept.xmin === xmin ? kept.row : undefined;
  }
}
