// `tidings db copy --from <database> --to <database>`: moves an install between backends (SQLite
// to PostgreSQL, or back), table by table in key order, in batches that each commit, so a copy
// that stops (Ctrl-C, a lost connection) carries on where it was when run again. Counters kept by
// triggers are recomputed at the end (the copied rows fire the target's triggers too), and the
// copy is verified: every table's row count and every subscription's unread counter must match.
import { openStore, type Store } from './open-store.ts';
import type { TestSql } from './testing.ts';

type Raw = TestSql;
interface RawCapable {
  raw(): Raw;
}
const raw = (s: Store): Raw => (s as unknown as RawCapable).raw();

/** Tables in foreign-key order, each with the columns of its primary key (the copy's cursor). */
export const COPY_TABLES: { table: string; key: string[] }[] = [
  { table: 'users', key: ['id'] },
  { table: 'feeds', key: ['id'] },
  { table: 'items', key: ['id'] },
  { table: 'subscriptions', key: ['id'] },
  { table: 'labels', key: ['id'] },
  { table: 'subscription_labels', key: ['subscription_id', 'label_id'] },
  { table: 'user_items', key: ['user_id', 'item_id'] },
  { table: 'item_labels', key: ['label_id', 'item_id'] },
  { table: 'items_removed', key: ['feed_id', 'guid'] },
  { table: 'auth_secrets', key: ['name'] },
  { table: 'oauth_clients', key: ['id'] },
  { table: 'auth_tokens', key: ['id'] },
  { table: 'oauth_codes', key: ['id'] },
  { table: 'api_keys', key: ['id'] },
  { table: 'chat_usage', key: ['id'] },
  { table: 'chat_async_jobs', key: ['id'] },
  { table: 'chat_access_requests', key: ['id'] },
  { table: 'fever_credentials', key: ['user_id'] },
  { table: 'feed_icons', key: ['feed_id'] },
  { table: 'item_full_text', key: ['item_id'] },
  { table: 'filter_rules', key: ['id'] },
  { table: 'rule_hidden_items', key: ['user_id', 'item_id'] },
  { table: 'webhooks', key: ['id'] },
  { table: 'webhook_deliveries', key: ['id'] },
  { table: 'websub_subscriptions', key: ['feed_id'] },
  { table: 'web_sessions', key: ['id'] },
  { table: 'web_settings', key: ['user_id'] },
  { table: 'web_conversations', key: ['id'] },
  { table: 'web_messages', key: ['id'] },
  { table: 'search_articles', key: ['item_id'] },
  { table: 'search_passages', key: ['id'] },
  { table: 'search_postings', key: ['term', 'chunk'] },
];

/** Single-row tables whose values are copied over the target's at the end. */
export const STATE_TABLES = ['search_index_state', 'reader_catalog_version', 'reader_items_version'];

/**
 * Tables the copy does not move row by row, and why: a table a migration adds is either in
 * COPY_TABLES or here (copy-tables.test.ts checks every table of a migrated database).
 */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  search_index_backlog: 'moved in its own step once the index tables are in (below)',
  schema_migrations: 'the target applies its own migrations',
  change_counter: "one SQLite database's own change signal (migration 195)",
  limit_buckets: 'rate-limit windows: seconds to minutes of state, started afresh',
  limit_events: 'rate-limit windows',
  limit_marks: 'rate-limit windows',
  limit_slots: 'concurrency slots of requests in flight',
  refresh_host_waits: 'the running refresh pass: per-host waits between fetches',
  upkeep_leases: 'which process runs background upkeep now',
  web_setup_token: "the first account's one-time setup link: a copied install has its accounts",
};

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}
export interface CopyReport {
  tables: { table: string; rows: number; copiedNow: number }[];
  subscriptions: number;
}

export class CopyError extends Error {}

const BATCH_ROWS = 2000;

function toDriverValue(v: unknown): unknown {
  // node:sqlite hands blobs back as Uint8Array; pg wants a Buffer for bytea (and node:sqlite takes one).
  return v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
}

async function count(db: Raw, table: string): Promise<number> {
  return Number((await db.prepare(`SELECT count(*) AS n FROM ${table}`).get<{ n: number }>())!.n);
}

/** Where a resumed copy of this table starts: the largest key already in the target. */
async function lastKey(db: Raw, t: { table: string; key: string[] }): Promise<unknown[] | undefined> {
  const order = t.key.map((k) => `${k} DESC`).join(', ');
  const row = await db
    .prepare(`SELECT ${t.key.join(', ')} FROM ${t.table} ORDER BY ${order} LIMIT 1`)
    .get<Record<string, unknown>>();
  return row ? t.key.map((k) => row[k]) : undefined;
}

export async function copyDatabase(
  fromUrl: string,
  toUrl: string,
  opts: { dataDir: string; onProgress?: (p: CopyProgress) => void },
): Promise<CopyReport> {
  if (fromUrl.trim() === toUrl.trim()) throw new CopyError('--from and --to name the same database');
  const from = await openStore({ databaseUrl: fromUrl, dataDir: opts.dataDir });
  let to: Store | undefined;
  try {
    to = await openStore({ databaseUrl: toUrl, dataDir: opts.dataDir });
    const src = raw(from),
      dst = raw(to);
    await dst.exec(
      'CREATE TABLE IF NOT EXISTS tidings_copy (source TEXT NOT NULL, started_at BIGINT NOT NULL, finished_at BIGINT)',
    );
    const mark = await dst
      .prepare('SELECT source, finished_at FROM tidings_copy')
      .get<{ source: string; finished_at: number | null }>();
    if (mark && mark.source !== from.location)
      throw new CopyError(`${to.location} holds a copy of ${mark.source}, not of ${from.location}`);
    if (!mark) {
      // Only an empty database may receive a copy: merging two installs is not what this does.
      for (const t of COPY_TABLES) {
        if (await count(dst, t.table))
          throw new CopyError(
            `${to.location} is not empty (table ${t.table} has rows): copy into a new, empty database`,
          );
      }
      await dst
        .prepare('INSERT INTO tidings_copy (source, started_at) VALUES (?, ?)')
        .run(from.location, Math.floor(Date.now() / 1000));
    }

    const report: CopyReport = { tables: [], subscriptions: 0 };
    for (const t of COPY_TABLES) {
      const total = await count(src, t.table);
      let copied = await count(dst, t.table);
      let copiedNow = 0;
      let after = await lastKey(dst, t);
      opts.onProgress?.({ table: t.table, copied, total });
      const keyList = t.key.join(', ');
      const next = (cursor: unknown[] | undefined) =>
        cursor
          ? src
              .prepare(
                `SELECT * FROM ${t.table} WHERE (${keyList}) > (${t.key.map(() => '?').join(', ')}) ORDER BY ${keyList} LIMIT ${BATCH_ROWS}`,
              )
              .all<Record<string, unknown>>(...cursor)
          : src
              .prepare(`SELECT * FROM ${t.table} ORDER BY ${keyList} LIMIT ${BATCH_ROWS}`)
              .all<Record<string, unknown>>();
      for (;;) {
        const rows = await next(after);
        if (!rows.length) break;
        const columns = Object.keys(rows[0]!);
        // Each batch is one transaction: a copy interrupted half way resumes after the last batch.
        await to.transaction(async () => {
          const perStatement = Math.max(1, Math.floor(30_000 / columns.length));
          for (let i = 0; i < rows.length; i += perStatement) {
            const chunk = rows.slice(i, i + perStatement);
            const values = chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
            await dst
              .prepare(`INSERT INTO ${t.table} (${columns.join(', ')}) VALUES ${values}`)
              .run(...chunk.flatMap((r) => columns.map((c) => toDriverValue(r[c]))));
          }
        });
        after = t.key.map((k) => rows.at(-1)![k]);
        copied += rows.length;
        copiedNow += rows.length;
        opts.onProgress?.({ table: t.table, copied, total });
      }
      report.tables.push({ table: t.table, rows: copied, copiedNow });
    }

    await to.transaction(async () => {
      for (const table of STATE_TABLES) {
        const row = await src.prepare(`SELECT * FROM ${table} WHERE id = 1`).get<Record<string, unknown>>();
        if (!row) continue;
        const cols = Object.keys(row).filter((c) => c !== 'id');
        await dst
          .prepare(`UPDATE ${table} SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = 1`)
          .run(...cols.map((c) => row[c]));
      }
      // The copied items queued themselves for indexing in the target (migration 085's trigger),
      // but their index was copied too: only what the source still had waiting stays queued.
      await dst.exec('DELETE FROM search_index_backlog');
      for (const r of await src
        .prepare('SELECT item_id, seq, queued_at FROM search_index_backlog ORDER BY item_id')
        .all<{ item_id: number; seq: number; queued_at: number }>())
        await dst
          .prepare('INSERT INTO search_index_backlog (item_id, seq, queued_at) VALUES (?, ?, ?)')
          .run(r.item_id, r.seq, r.queued_at);
      // The target's triggers counted the copied user_items on top of the copied counters.
      await dst.exec(`UPDATE subscriptions SET
        unread_count = (SELECT count(*) FROM user_items u WHERE u.user_id = subscriptions.user_id AND u.feed_id = subscriptions.feed_id AND u.read = 0),
        newest_item_us = (SELECT coalesce(max(crawled_us), 0) FROM user_items u WHERE u.user_id = subscriptions.user_id AND u.feed_id = subscriptions.feed_id)`);
      if (to!.backend === 'postgres') {
        // Identity columns continue after the copied ids.
        for (const t of COPY_TABLES.filter((x) => x.key.length === 1 && x.key[0] === 'id')) {
          // Text ids (api_keys, chat_async_jobs, web_sessions) have no sequence.
          const seq = await dst
            .prepare(`SELECT pg_get_serial_sequence('${t.table}', 'id') AS s`)
            .get<{ s: string | null }>();
          if (!seq?.s) continue;
          await dst.exec(
            `SELECT setval(pg_get_serial_sequence('${t.table}', 'id'), greatest((SELECT max(id) FROM ${t.table}), 1))`,
          );
        }
      }
    });

    // Verification: the same rows, and the same unread counter for every subscription.
    for (const t of COPY_TABLES) {
      const a = await count(src, t.table),
        b = await count(dst, t.table);
      if (a !== b)
        throw new CopyError(`verification failed: ${t.table} has ${a} rows in the source and ${b} in the copy`);
    }
    const counters = async (db: Raw) =>
      new Map(
        (
          await db
            .prepare('SELECT id, unread_count, newest_item_us FROM subscriptions')
            .all<{ id: number; unread_count: number; newest_item_us: number }>()
        ).map((r) => [Number(r.id), `${r.unread_count}/${r.newest_item_us}`]),
      );
    const [sa, sb] = [await counters(src), await counters(dst)];
    for (const [id, v] of sa) {
      if (sb.get(id) !== v)
        throw new CopyError(
          `verification failed: subscription ${id} has unread/newest ${v} in the source and ${sb.get(id) ?? 'nothing'} in the copy`,
        );
    }
    report.subscriptions = sa.size;
    await dst.prepare('UPDATE tidings_copy SET finished_at = ?').run(Math.floor(Date.now() / 1000));
    return report;
  } finally {
    await to?.close();
    await from.close();
  }
}
