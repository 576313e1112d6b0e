// `tidings migrate` (apply pending schema migrations now; start-up does it too) and
// `tidings db copy --from … --to …` (move an install between SQLite and PostgreSQL).
import type { Command } from 'commander';
import { isAbsolute, resolve } from 'node:path';
import { type CliContext, CliError } from '../context.ts';
import { openStore, redactUrl } from '../../store/open-store.ts';
import { copyDatabase, CopyError, type CopyProgress } from '../../store/copy.ts';

/** A database argument: a URL as TIDINGS_DATABASE_URL takes, or the path of a SQLite file. */
function databaseArg(value: string): string {
  const v = value.trim();
  if (!v) throw new CliError('a database is required: a postgres:// URL or the path of a SQLite file', 2);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || /^sqlite:/i.test(v)) return v;
  return `sqlite:${isAbsolute(v) ? v : resolve(v)}`;
}

export function registerDbCommands(program: Command, ctx: CliContext): void {
  program
    .command('migrate')
    .description('apply pending database migrations now (start-up does it too); prints what was applied')
    .action(async () => {
      const c = ctx.config();
      const store = await openStore({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
      try {
        const ran = store.migrationsApplied;
        ctx.out(
          ran.length
            ? `applied ${ran.length} migration(s) to ${store.location}: ${ran.join(', ')}`
            : `${store.location} is up to date`,
        );
      } finally {
        await store.close();
      }
    });

  const db = program.command('db').description('database tools');
  db.command('copy')
    .description('copy every table to another database (e.g. SQLite -> PostgreSQL); resumable, verified')
    .requiredOption('--from <database>', 'source: postgres://… URL or SQLite file path')
    .requiredOption('--to <database>', 'target: an empty database (postgres://… URL or SQLite file path)')
    .action(async (o: { from: string; to: string }) => {
      const from = databaseArg(o.from),
        to = databaseArg(o.to);
      const stderr = process.stderr;
      let last = '';
      const show = (p: CopyProgress) => {
        const pct = p.total ? Math.floor((p.copied / p.total) * 100) : 100;
        const line = `copy ${p.table}: ${p.copied}/${p.total} rows (${pct}%)`;
        if (stderr.isTTY) stderr.write(`\r${line.padEnd(last.length)}`);
        else if (p.copied === p.total || pct % 10 === 0) stderr.write(line + '\n');
        if (stderr.isTTY && p.copied >= p.total) stderr.write('\n');
        last = line;
      };
      try {
        const r = await copyDatabase(from, to, { dataDir: ctx.config().dataDir, onProgress: show });
        const rows = r.tables.reduce((n, t) => n + t.rows, 0);
        ctx.out(
          `copied ${rows} rows in ${r.tables.length} tables to ${redactUrl(to)}; verified: row counts and the unread counters of ${r.subscriptions} subscriptions match`,
        );
        ctx.out(`to use it: TIDINGS_DATABASE_URL=${redactUrl(to)} npm start`);
      } catch (e) {
        if (e instanceof CopyError) throw new CliError(e.message, 1);
        throw e;
      }
    });
}
