// `tidings ask`: a search-grounded answer from the command line, through the same AnswerService
// the chat completions API uses. Text streams to stdout as it is written, numbered sources follow;
// `--json` prints exactly the completion object the API would return. Progress of long pipelines
// (deep research) goes to stderr.
import { type Command, Option } from 'commander';
import { withSearchReady } from './search.ts';
import { type CliContext, CliError } from '../context.ts';
import { answerService } from '../../answer/service.ts';
import { EngineRegistry } from '../../answer/engines/select.ts';
import {
  AnswerError,
  SONAR_MODELS,
  type AnswerRequest,
  type AnswerResult,
  type SearchScope,
  type SonarModel,
} from '../../answer/types.ts';
import { toCompletionObject } from '../../chat-api/completion-object.ts';
import { configuredPrices } from '../../chat-api/prices.ts';

interface AskOptions {
  model: string;
  user?: string;
  recency?: AnswerRequest['filters']['recency'];
  domain?: string[];
  context: AnswerRequest['searchContextSize'];
  effort?: AnswerRequest['reasoningEffort'];
  maxTokens?: string;
  asOf?: string;
  images?: boolean;
  related?: boolean;
  json?: boolean;
}

export function registerAskCommands(program: Command, ctx: CliContext): void {
  program
    .command('ask')
    .description('answer a question from the stored articles, with [n] citations')
    .argument('<question...>', 'the question')
    .addOption(new Option('--model <model>', 'model').choices([...SONAR_MODELS]).default('sonar'))
    .option('--user <name>', "search only this user's subscriptions (default: every stored article)")
    .addOption(
      new Option('--recency <period>', 'only articles from the last hour, day, week, month or year').choices([
        'hour',
        'day',
        'week',
        'month',
        'year',
      ]),
    )
    // Repeatable rather than variadic, so the question after it is not taken for a domain.
    .option(
      '--domain <domain>',
      'only this site (repeat or comma-separate, up to 3); prefix with - to exclude sites instead',
      (v: string, all: string[] = []) => [
        ...all,
        ...v
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean),
      ],
    )
    .addOption(
      new Option('--context <size>', 'how much retrieved text grounds the answer')
        .choices(['low', 'medium', 'high'])
        .default('low'),
    )
    .addOption(
      new Option('--effort <level>', 'reasoning effort of sonar-deep-research').choices([
        'minimal',
        'low',
        'medium',
        'high',
      ]),
    )
    .option('--max-tokens <n>', 'cut the answer at this many tokens')
    .option(
      '--as-of <YYYY-MM-DD>',
      'answer as if today were this day ("this week", "latest" and --recency count from it)',
    )
    .option('--images', 'also list images of the articles')
    .option('--related', 'also suggest related questions')
    .option('--json', 'print the completion object the chat API would return')
    .action(async (words: string[], o: AskOptions) => {
      const app = await withSearchReady(await ctx.app());
      const model = o.model as SonarModel;
      // The model this machine runs, if any (loaded here: `tidings ask` is its own process).
      const { startLocalModel, localModelState, QUOTES_NOTE } = await import('../../answer/local/index.ts');
      await startLocalModel(app);
      // Quotes, not written answers: one line on stderr (stdout and --json stay the answer; r1-1776
      // is refused with its own message).
      if (
        !o.json &&
        model !== 'r1-1776' &&
        new EngineRegistry(app.config, () => localModelState(app).model).kindFor(model) === 'extractive'
      )
        process.stderr.write(`${QUOTES_NOTE}\n`);
      let scope: SearchScope = { kind: 'instance' };
      if (o.user) {
        const u = await app.users.findByName(o.user);
        if (!u) throw new CliError(`no user "${o.user}" (see tidings user list)`, 2);
        scope = { kind: 'subscriptions', userId: u.id };
      }
      let maxTokens: number | undefined;
      if (o.maxTokens !== undefined) {
        maxTokens = Number(o.maxTokens);
        if (!Number.isInteger(maxTokens) || maxTokens < 1)
          throw new CliError(`--max-tokens must be a whole number of at least 1, got "${o.maxTokens}"`, 2);
      }
      let asOf: number | undefined;
      if (o.asOf !== undefined) {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(o.asOf);
        asOf = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, 23, 59, 59) / 1000 : Number.NaN;
        if (!m || Number.isNaN(asOf) || new Date(asOf * 1000).getUTCDate() !== +m[3]!)
          throw new CliError(`--as-of must be a day as YYYY-MM-DD (e.g. 2025-03-14), got "${o.asOf}"`, 2);
      }
      const stdoutGone = watchStdout();
      const req: AnswerRequest = {
        signal: stdoutGone.signal,
        model,
        messages: [{ role: 'user', content: words.join(' ') }],
        scope,
        filters: { ...(o.recency ? { recency: o.recency } : {}), ...(o.domain ? { domainFilter: o.domain } : {}) },
        searchContextSize: o.context,
        reasoningEffort: o.effort,
        maxTokens,
        asOf,
        returnImages: o.images,
        returnRelatedQuestions: o.related,
        onProgress: (p) => process.stderr.write(`… ${p.message}\n`),
      };
      try {
        if (o.json) {
          const result = await answerService(app).complete(req);
          ctx.out(
            JSON.stringify(
              toCompletionObject(result, model, {
                searchContextSize: o.context,
                prices: configuredPrices(app.config),
                returnImages: o.images,
                returnRelatedQuestions: o.related,
              }),
              null,
              2,
            ),
          );
          return;
        }
        await streamToStdout(answerService(app).stream(req), ctx, stdoutGone.signal);
      } catch (e) {
        if (stdoutGone.signal.aborted) return;
        if (e instanceof AnswerError)
          throw new CliError(e.message, e.code === 'invalid_request' || e.code === 'engine_unavailable' ? 2 : 1);
        throw e;
      }
    });
}

let stdoutWatch: AbortController | undefined;

/**
 * A closed stdout (`tidings ask … | head`) ends the answer quietly instead of crashing on EPIPE.
 * Installed once per process and kept: queued writes can fail after the command has finished.
 */
function watchStdout(): AbortController {
  if (!stdoutWatch) {
    const watch = new AbortController();
    process.stdout.on('error', (e) => {
      if (!watch.signal.aborted) watch.abort(e);
    });
    stdoutWatch = watch;
  }
  return stdoutWatch;
}

async function streamToStdout(
  events: ReturnType<ReturnType<typeof answerService>['stream']>,
  ctx: CliContext,
  stdoutGone: AbortSignal,
): Promise<void> {
  const result: Partial<AnswerResult> = {};
  for await (const ev of events) {
    if (ev.type === 'sources') {
      result.searchResults = ev.searchResults;
      continue;
    }
    if (ev.type === 'delta') {
      if (!stdoutGone.aborted) process.stdout.write(ev.text);
      continue;
    }
    result.finishReason = ev.finishReason;
    result.images = ev.images;
    result.relatedQuestions = ev.relatedQuestions;
  }
  const lines: string[] = [''];
  if (result.finishReason === 'length') lines.push('(cut at --max-tokens)');
  if (result.searchResults?.length) {
    lines.push('', 'Sources:');
    result.searchResults.forEach((s, i) =>
      lines.push(`[${i + 1}] ${s.title}${s.date ? ` (${s.date})` : ''}\n    ${s.url}`),
    );
  }
  if (result.relatedQuestions?.length)
    lines.push('', 'Related questions:', ...result.relatedQuestions.map((q) => `- ${q}`));
  if (result.images?.length)
    lines.push(
      '',
      'Images:',
      ...result.images.map((i) => `- ${i.image_url}${i.width ? ` (${i.width}×${i.height})` : ''} from ${i.origin_url}`),
    );
  if (!stdoutGone.aborted) ctx.out(lines.join('\n'));
}
