// `tidings feed set <user> <feed> [--full-text on|off|auto]`: per-subscription settings of the
// reader features (issue #14). Without options, shows them.
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import { feedEngine, normaliseInputUrl } from '../../feeds/engine.ts';
import { fullTextQueue, fullTextStore, fullTextIdle } from '../../feeds/fulltext/fulltext.ts';
import type { FullTextMode } from '../../store/repositories.ts';

const MODES: FullTextMode[] = ['on', 'off', 'auto'];

export function registerFeedSettingCommands(program: Command, ctx: CliContext): void {
  const feed = program.commands.find((c) => c.name() === 'feed') ?? program.command('feed');
  feed.command('set <user> <feed>')
    .description("change a subscription's settings (full text); without options, show them")
    .option('--full-text <mode>', 'on: fetch each new article\'s page and keep its readable text; off; auto: follow teaser detection (TIDINGS_FULL_TEXT_AUTO)')
    .option('--json', 'JSON output')
    .action(async (username: string, feedArg: string, o: { fullText?: string; json?: boolean }) => {
      const app = await ctx.app();
      const user = await app.users.findByName(username);
      if (!user) throw new CliError(`no user "${username}" (see tidings user list)`, 2);
      const subs = await feedEngine(app).subscriptions.list(user.id);
      let normalised: string | undefined;
      try { normalised = normaliseInputUrl(feedArg); } catch { normalised = undefined; }
      const sub = subs.find((s) => String(s.feedId) === feedArg || s.feed.url === feedArg || s.feed.url === normalised);
      if (!sub) throw new CliError(`${username} is not subscribed to ${feedArg} (see tidings feed list ${username})`, 1);
      const store = fullTextStore(app);
      if (o.fullText !== undefined) {
        if (!MODES.includes(o.fullText as FullTextMode)) throw new CliError(`--full-text takes on, off or auto, got "${o.fullText}"`, 2);
        await store.setMode(user.id, sub.feedId, o.fullText as FullTextMode);
        if (o.fullText !== 'off') {
          // The feed's recent items get their text now, not only at the next new item.
          fullTextQueue(app).schedule(sub.feedId);
          await fullTextIdle(app);
        }
      }
      const st = await store.status(sub.feedId);
      const mode = await store.mode(user.id, sub.feedId);
      const active = await store.wantsFullText(sub.feedId, app.config.fullTextAuto === 'enable');
      const out = {
        feed: sub.feed.url, fullText: mode, active, teaser: st.teaser,
        suggestion: st.teaser && !active ? 'this feed carries only teasers: `--full-text on` would fetch the articles' : null,
        articles: { withFullText: st.ok, failed: st.failed }, lastError: st.lastError,
      };
      if (o.json) return ctx.out(JSON.stringify(out));
      ctx.out([
        `${out.feed}`,
        `full text: ${mode}${active ? ' (fetching articles)' : ''}`,
        `teaser detection: ${st.teaser === null ? 'not checked yet' : st.teaser ? 'teaser feed' : 'full articles in the feed'}`,
        ...(out.suggestion ? [`suggestion: ${out.suggestion}`] : []),
        `articles with full text: ${st.ok}, failed: ${st.failed}${st.lastError ? ` (last error: ${st.lastError})` : ''}`,
      ].join('\n'));
    });
}
