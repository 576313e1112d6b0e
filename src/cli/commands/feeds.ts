// `tidings feed add|list|remove`, `tidings opml import|export`, `tidings refresh`.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import type { App } from '../../runtime/app.ts';
import { feedEngine, subscribe, unsubscribe, refreshDue, FeedError, type RefreshResult } from '../../feeds/index.ts';
import { importOpml, exportOpml } from '../../feeds/index.ts';
import { OpmlError } from '../../feeds/opml/opml-error.ts';
import { relativeTime, table } from '../format.ts';

const collect = (v: string, acc: string[]) => [...acc, v];
const iso = (s: number | null) => (s ? new Date(s * 1000).toISOString() : null);

async function userId(app: App, name: string): Promise<number> {
  const u = await app.users.findByName(name);
  if (!u) throw new CliError(`no user "${name}" (create it with: tidings user add ${name} --password …)`, 2);
  return u.id;
}

export function registerFeedCommands(program: Command, ctx: CliContext): void {
  const feed = program.command('feed').description('manage feed subscriptions');

  feed
    .command('add <user> <url>')
    .description('subscribe a user to a feed, or to the feed a site page announces')
    .option('--folder <name>', 'file under this folder (repeatable)', collect, [] as string[])
    .option('--title <title>', 'your own title for the subscription')
    .action(async (user: string, url: string, o: { folder: string[]; title?: string }) => {
      const app = await ctx.app();
      const id = await userId(app, user);
      try {
        const r = await subscribe(app, id, url, { title: o.title ?? null, folders: o.folder });
        const filed = o.folder.length ? ` in ${o.folder.map((f) => `"${f}"`).join(', ')}` : '';
        ctx.out(
          r.created
            ? `subscribed ${user} to "${r.title}" (${r.url})${filed}`
            : `${user} is already subscribed to "${r.title}" (${r.url})${filed ? `; filed${filed}` : ''}`,
        );
      } catch (e) {
        if (e instanceof FeedError) throw new CliError(`cannot add ${url}: ${e.message}`, e.code === 'bad_url' ? 2 : 1);
        throw e;
      }
    });

  feed
    .command('list <user>')
    .description("list a user's subscriptions with their fetch state")
    .option('--json', 'JSON output')
    .action(async (user: string, o: { json?: boolean }) => {
      const app = await ctx.app();
      const subs = await feedEngine(app).subscriptions.list(await userId(app, user));
      const rows = subs.map((s) => ({
        title: s.title,
        url: s.feed.url,
        siteUrl: s.feed.siteUrl,
        folders: s.folders,
        itemCount: s.feed.itemCount,
        unreadCount: s.unreadCount,
        lastFetchedAt: iso(s.feed.lastFetchedAt),
        nextFetchAt: iso(s.feed.nextFetchAt),
        lastStatus: s.feed.lastStatus,
        lastError: s.feed.lastError,
        errorCount: s.feed.errorCount,
        lastDurationMs: s.feed.lastDurationMs,
      }));
      if (o.json) {
        ctx.out(JSON.stringify(rows, null, 2));
        return;
      }
      if (!rows.length) {
        ctx.out(`${user} has no subscriptions (add one with: tidings feed add ${user} <url>)`);
        return;
      }
      const now = Date.now() / 1000;
      ctx.out(
        table(
          ['TITLE', 'URL', 'FOLDERS', 'ITEMS', 'UNREAD', 'STATUS', 'LAST FETCH', 'NEXT FETCH'],
          subs.map((s) => [
            s.title,
            s.feed.url,
            s.folders.join(',') || '-',
            s.feed.itemCount,
            s.unreadCount,
            s.feed.lastError
              ? `error (${s.feed.errorCount}x): ${s.feed.lastError}`
              : s.feed.lastFetchedAt
                ? 'ok'
                : 'not fetched yet',
            relativeTime(s.feed.lastFetchedAt, now),
            s.feed.nextFetchAt === null || s.feed.nextFetchAt <= now
              ? 'due now'
              : relativeTime(s.feed.nextFetchAt, now),
          ]),
        ),
      );
    });

  feed
    .command('remove <user> <url>')
    .description('unsubscribe a user from a feed (starred items are kept)')
    .action(async (user: string, url: string) => {
      const app = await ctx.app();
      if (!(await unsubscribe(app, await userId(app, user), url)))
        throw new CliError(`${user} is not subscribed to ${url} (see: tidings feed list ${user})`, 1);
      ctx.out(`unsubscribed ${user} from ${url}`);
    });

  const opml = program.command('opml').description('import or export subscriptions as OPML');
  opml
    .command('import <user> <file>')
    .description('subscribe a user to every feed of an OPML file (folders kept); feeds are fetched by the next refresh')
    .action(async (user: string, file: string) => {
      let xml: string;
      try {
        xml = readFileSync(file, 'utf8');
      } catch (e) {
        throw new CliError(
          `cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
          2,
        );
      }
      const app = await ctx.app();
      const id = await userId(app, user);
      try {
        const r = await importOpml(app, id, xml, {
          onProgress: (done, total) => {
            if (total > 1000 && process.stderr.isTTY) process.stderr.write(`\rimporting ${done}/${total}`);
          },
        });
        if (process.stderr.isTTY && r.imported + r.alreadySubscribed > 1000) process.stderr.write('\n');
        if (r.imported + r.alreadySubscribed + r.skipped.length === 0)
          throw new CliError(`${file}: no feeds found (no <outline xmlUrl="…"> in the OPML body)`, 1);
        ctx.out(
          `imported ${r.imported} feed(s) for ${user}` +
            (r.alreadySubscribed ? `, ${r.alreadySubscribed} already subscribed` : '') +
            (r.skipped.length ? `, ${r.skipped.length} skipped` : '') +
            '; run `tidings refresh` to fetch them now',
        );
        for (const s of r.skipped) process.stderr.write(`skipped ${s.url}: ${s.reason}\n`);
      } catch (e) {
        if (e instanceof OpmlError) throw new CliError(`${file}: ${e.message}`, 1);
        throw e;
      }
    });
  opml
    .command('export <user>')
    .description("print a user's subscriptions as OPML")
    .action(async (user: string) => {
      const app = await ctx.app();
      ctx.out(await exportOpml(app, await userId(app, user), `${user}'s subscriptions in Tidings`));
    });

  program
    .command('refresh')
    .description(
      'fetch every feed that is due now (with --all: every subscribed feed), then exit; exit code 0 when every feed was fetched (or none was due), 1 when some failed',
    )
    .option('--all', 'refresh every subscribed feed, due or not')
    .action(async (o: { all?: boolean }) => {
      // A one-shot process that mostly writes: SQLite without its memory map (BENCHMARKS.md, Memory).
      const app = await ctx.app({ workload: 'batch' });
      const progress = progressReporter(process.stderr);
      const failures: RefreshResult[] = [];
      const s = await refreshDue(app, {
        all: o.all,
        onProgress: (done, total, r) => {
          if (r.error) failures.push(r);
          progress(done, total, r.added);
        },
      });
      progress.end();
      for (const f of failures.slice(0, 20)) process.stderr.write(`failed ${f.url}: ${f.error!.message}\n`);
      if (failures.length > 20)
        process.stderr.write(`… and ${failures.length - 20} more (see: tidings feed list <user>)\n`);
      ctx.out(
        s.feeds === 0
          ? s.refreshedElsewhere
            ? `${s.refreshedElsewhere} due feed(s) were refreshed by another process meanwhile`
            : 'no feeds are due (use --all to refresh every feed now)'
          : `refreshed ${s.feeds} feed(s) in ${(s.durationMs / 1000).toFixed(1)} s: ${s.updated} updated, ${s.notModified} unchanged, ${s.failed} failed; ${s.itemsAdded} new item(s), ${s.itemsUpdated} changed${s.refreshedElsewhere ? `; ${s.refreshedElsewhere} refreshed by another process` : ''}`,
      );
      // Scripts and cron see failures in the exit code; the feeds that failed are listed above.
      if (s.failed > 0)
        throw new CliError(
          `${s.failed} of ${s.feeds} feed(s) failed (details above and in tidings feed list <user>)`,
          1,
        );
    });
}

/** A progress bar on a terminal; periodic plain lines otherwise (logs, CI). */
function progressReporter(
  stream: NodeJS.WriteStream,
): ((done: number, total: number, added: number) => void) & { end(): void } {
  let items = 0,
    lastLine = 0,
    lastDraw = 0,
    drawn = false;
  const t0 = Date.now();
  const fn = (done: number, total: number, added: number) => {
    items += added;
    if (stream.isTTY) {
      if (done < total && Date.now() - lastDraw < 100) return; // ~10 redraws a second
      lastDraw = Date.now();
      const width = 30,
        filled = Math.round((done / total) * width);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} feeds, ${items} new items `,
      );
      drawn = true;
    } else if (Date.now() - lastLine >= 2000 || done === total) {
      if (done === total && Date.now() - t0 < 2000) return; // short runs: the summary line is enough
      lastLine = Date.now();
      stream.write(`refresh: ${done}/${total} feeds, ${items} new items\n`);
    }
  };
  return Object.assign(fn, {
    end() {
      if (drawn) stream.write('\n');
    },
  });
}
