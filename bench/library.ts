// The generated library the Reader API and web app benches serve (bench/reader.bench.ts,
// bench/web.bench.ts): one user, N feeds in 10 folders, M items spread over a year, written
// straight into a SQLite database of the current schema (minutes faster than refreshing that many
// feeds; bench:feeds measures refreshing). The same library in both benches, so their figures
// describe the same data.
//
// - Items: 2-6 paragraphs of HTML (~0.5-1.5 KB), an author on two in three, an enclosure on one in
//   fifty; feeds spread over 37 hosts. The oldest 70 % mostly read (three in four), the newest
//   30 % unread, 1 % starred; the triggers keep the unread counters as ingest does.
// - No ANALYZE: the database is left as ingest leaves it, and the server gathers statistics itself
//   (PRAGMA optimize on open). An ANALYZE here once hid a 40x slower items/contents (issue #10).
// - Search index: not built unless `searchIndex` (then the server indexes the backlog the item
//   triggers queued, in the background from its start: about a minute per 100k items here).
//   Without it the backlog is emptied. (The benches used to insert a placeholder row into
//   search_articles instead, which the schema had refused since migration 033 behind a try/catch,
//   so the server indexed the whole library while they measured.)
import { join } from 'node:path';
import { openDatabase, transaction } from '../src/store/sqlite/db.ts';

export interface LibraryOptions {
  feeds: number;
  items: number;
  username: string;
  /** The stored password hash (auth/passwords.ts hashPassword), hashed once by the caller. */
  passwordHash: string;
  /** Let the server index the items (see above); default false. */
  searchIndex?: boolean;
}

export const LIBRARY_FOLDERS = 10;

/** Writes the library into `dataDir`'s database (created and migrated by openDatabase). */
export function generateLibrary(dataDir: string, o: LibraryOptions): void {
  const t0 = performance.now();
  const db = openDatabase(join(dataDir, 'tidings.db'));
  const now = Math.floor(Date.now() / 1000);
  const para =
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';
  transaction(db, () => {
    db.prepare('INSERT INTO users (username, email, password_hash, created_at) VALUES (?, ?, ?, ?)').run(
      o.username,
      `${o.username}@example.org`,
      o.passwordHash,
      now,
    );
    const feed = db.prepare('INSERT INTO feeds (url, site_url, title, created_at) VALUES (?, ?, ?, ?)');
    const sub = db.prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) VALUES (1, ?, ?)');
    const label = db.prepare('INSERT INTO labels (user_id, name) VALUES (1, ?)');
    const file = db.prepare('INSERT INTO subscription_labels (subscription_id, label_id) VALUES (?, ?)');
    for (let f = 1; f <= LIBRARY_FOLDERS; f++) label.run(`Folder ${f}`);
    for (let f = 1; f <= o.feeds; f++) {
      feed.run(
        `https://feeds${f % 37}.example.com/feed-${f}.xml`,
        `https://feeds${f % 37}.example.com/`,
        `Feed number ${f}`,
        now,
      );
      sub.run(f, now);
      file.run(f, (f % LIBRARY_FOLDERS) + 1);
    }
    const item =
      db.prepare(`INSERT INTO items (feed_id, guid, url, title, author, content, published_at, updated_at, crawled_us, content_hash, enclosures)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const ui = db.prepare(
      'INSERT INTO user_items (user_id, item_id, feed_id, crawled_us, read, starred) VALUES (1, ?, ?, ?, ?, ?)',
    );
    const startUs = (now - 365 * 86400) * 1e6;
    const stepUs = Math.floor((365 * 86400 * 1e6) / o.items);
    for (let i = 1; i <= o.items; i++) {
      const feedId = ((i * 7919) % o.feeds) + 1;
      const crawled = startUs + i * stepUs;
      const content = `<p>${para.repeat(2 + (i % 5))}</p><p><a href="https://example.com/${i}">Read more</a> about item ${i} &amp; friends.</p>`;
      item.run(
        feedId,
        `guid-${i}`,
        `https://feeds${feedId % 37}.example.com/posts/${i}`,
        `Item ${i}: a headline of average length for a feed`,
        i % 3 ? 'Jane Doe' : null,
        content,
        Math.floor(crawled / 1e6) - 60,
        Math.floor(crawled / 1e6) - 60,
        crawled,
        `h${i}`,
        i % 50 === 0
          ? JSON.stringify([{ url: `https://cdn.example.com/${i}.mp3`, type: 'audio/mpeg', length: 1234567 }])
          : null,
      );
      // Older items mostly read (as in a real library), the newest 30% unread; 1% starred.
      ui.run(i, feedId, crawled, i < o.items * 0.7 && i % 4 ? 1 : 0, i % 100 === 0 ? 1 : 0);
    }
    // The item triggers queued every item for the search index (migration 085): the server would
    // index them in the background while the bench measures something else.
    if (!o.searchIndex) db.exec('DELETE FROM search_index_backlog');
  });
  db.close();
  console.log(`generated ${o.feeds} feeds, ${o.items} items in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
