// `tidings feed set <user> <feed> [--full-text on|off|auto]`: per-subscription settings of the
// reader features (issue #14). Without options, shows them.
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import { findSubscription } from '../../feeds/index.ts';
import {
  fullTextIdle,
  fullTextSettings,
  FullTextSettingError,
  setFullTextMode,
} from '../../feeds/fulltext/fulltext.ts';

export function registerFeedSettingCommands(program: Command, ctx: CliContext): void {
  const feed = program.commands.find((c) => c.name() === 'feed') ?? program.command('feed');
  feed
    .command('set <user> <feed>')
    .description("change a subscription's settings (full text); without options, show them")
    .option(
      '--full-text <mode>',
      "on: fetch each new article's page and keep its readable text; off; auto: follow teaser detection (TIDINGS_FULL_TEXT_AUTO)",
    )
    .option('--json', 'JSON output')
    .action(async (username: string, feedArg: string, o: { fullText?: string; json?: boolean }) => {
      const app = await ctx.app();
      const user = await app.users.findByName(username);
      if (!user) throw new CliError(`no user "${username}" (see tidings user list)`, 2);
      const sub = await findSubscription(app, user.id, feedArg);
      if (!sub)
        throw new CliError(`${username} is not subscribed to ${feedArg} (see tidings feed list ${username})`, 1);
      if (o.fullText !== undefined) {
        try {
          await setFullTextMode(app, user.id, sub.feedId, o.fullText);
        } catch (e) {
          if (e instanceof FullTextSettingError)
            throw new CliError(`--${e.message.replace(/^full text/, 'full-text')}`, 2);
          throw e;
        }
        // The feed's recent items get their text before the command returns.
        await fullTextIdle(app);
      }
      const out = (await fullTextSettings(app, user.id, sub.feedId))!;
      const { feedId: _, ...shown } = out;
      if (o.json) return ctx.out(JSON.stringify(shown));
      ctx.out(
        [
          `${out.feed}`,
          `full text: ${out.fullText}${out.active ? ' (fetching articles)' : ''}`,
          `teaser detection: ${out.teaser === null ? 'not checked yet' : out.teaser ? 'teaser feed' : 'full articles in the feed'}`,
          ...(out.teaser && !out.active
            ? ['suggestion: this feed carries only teasers: `--full-text on` would fetch the articles']
            : []),
          `articles with full text: ${out.articles.withFullText}, failed: ${out.articles.failed}${out.lastError ? ` (last error: ${out.lastError})` : ''}`,
        ].join('\n'),
      );
    });
}
