import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import {
  finishPendingRebuild,
  rebuildFoundAtStart,
  reindexAll,
  searchIndexRepository,
  searchIndexStatus,
} from '../../search/indexing.ts';
import type { App } from '../../runtime/app.ts';
import { searchService } from '../../search/service.ts';
import { SearchFilterError } from '../../search/types.ts';
import type { SearchScope } from '../../search/types.ts';

/**
 * Finishes a search index rebuild that an upgrade left pending (the server does it in the
 * background; a command would search a partial index), telling stderr why it waits.
 */
export async function withSearchReady(app: App): Promise<App> {
  // Found at start too: the process's own background job may have finished a small rebuild by now.
  if (rebuildFoundAtStart(app) || (await searchIndexRepository(app).state()).rebuildAfter !== null) {
    process.stderr.write('tidings: finishing the search index rebuild left by an upgrade…\n');
    await finishPendingRebuild(app);
    const articles = await searchIndexRepository(app).articleCount();
    process.stderr.write(`tidings: search index rebuilt (${articles} articles)\n`);
  }
  return app;
}

export function registerSearchCommands(program: Command, ctx: CliContext): void {
  const search = program.command('search').description('the article search index');
  search
    .command('reindex')
    .description('rebuild the search index from the stored articles')
    .action(async () => {
      const t0 = performance.now();
      const { items, passages } = await reindexAll(await ctx.app());
      ctx.out(`indexed ${items} articles (${passages} passages) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    });
  search
    .command('status')
    .description('articles stored, indexed and waiting to be indexed (and for how long)')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const app = await ctx.app();
      const status = await searchIndexStatus(app);
      if (o.json) {
        ctx.out(JSON.stringify(status));
        return;
      }
      const n = (x: number) => x.toLocaleString('en-US');
      const lines = [
        `backend:  ${status.backend}`,
        `stored:   ${n(status.stored)} articles`,
        `indexed:  ${n(status.indexed)} articles (${n(status.passages)} passages)`,
        `waiting:  ${n(status.waiting)}` +
          (status.lagSeconds === null ? '' : ` (oldest queued ${status.lagSeconds.toFixed(1)} s ago)`),
      ];
      if (status.noText) lines.push(`no text:  ${n(status.noText)} articles (no title or body: nothing to index)`);
      if (status.rebuild) lines.push(`rebuild:  in progress, items after id ${n(status.rebuild.afterItemId)} to go`);
      ctx.out(lines.join('\n'));
    });
  search
    .command('query <text...>')
    .description('search the index (one billed search, like the chat API)')
    .option('--user <username>', "search this user's subscriptions (default: the whole instance)")
    .option(
      '--stream <id...>',
      'search only these Google Reader stream ids of the user (feed/<url>, user/-/label/<name>, …)',
    )
    .option('--limit <n>', 'articles to show', '10')
    .option('--json', 'JSON output')
    .action(async (words: string[], o: { user?: string; stream?: string[]; limit: string; json?: boolean }) => {
      const app = await withSearchReady(await ctx.app());
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100)
        throw new CliError('--limit must be a whole number from 1 to 100', 2);
      let scope: SearchScope = { kind: 'instance' };
      if (o.user || o.stream) {
        if (!o.user) throw new CliError('--stream needs --user (stream ids belong to a user)', 2);
        const u = await app.users.findByName(o.user);
        if (!u) throw new CliError(`no user "${o.user}"`, 1);
        scope = o.stream
          ? { kind: 'streams', userId: u.id, streamIds: o.stream }
          : { kind: 'subscriptions', userId: u.id };
      }
      try {
        const hits = await searchService(app).search({ text: words.join(' '), scope, filters: {}, limit });
        ctx.out(
          o.json
            ? JSON.stringify(hits)
            : hits
                .map((h, i) => `${i + 1}. ${h.title}\n   ${h.url}\n   ${h.passages[0]?.text.slice(0, 200) ?? ''}`)
                .join('\n') || '(no results)',
        );
      } catch (e) {
        if (e instanceof SearchFilterError) throw new CliError(e.message, 2);
        throw e;
      }
    });
}
