// `tidings webhook add|list|remove|deliveries`: per-user outgoing webhooks (src/webhooks).
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import type { App } from '../../runtime/app.ts';
import type { WebhookDelivery } from '../../store/repositories.ts';
import {
  addWebhook,
  removeWebhook,
  webhookDeliveries,
  webhookStore,
  WebhookInputError,
  WEBHOOK_EVENTS,
} from '../../webhooks/webhooks.ts';

const iso = (s: number | null) => (s ? new Date(s * 1000).toISOString().replace('.000Z', 'Z') : null);

async function userId(app: App, name: string): Promise<number> {
  const u = await app.users.findByName(name);
  if (!u) throw new CliError(`no user "${name}" (see tidings user list)`, 2);
  return u.id;
}

function numericId(raw: string): number {
  if (!/^\d+$/.test(raw))
    throw new CliError(`webhook id must be a number (see tidings webhook list <user>), got "${raw}"`, 2);
  return Number(raw);
}

export function registerWebhookCommands(program: Command, ctx: CliContext): void {
  const hook = program
    .command('webhook')
    .description('outgoing webhooks: POST signed JSON to a URL on new items or starring');
  hook
    .command('add <user> <url>')
    .description('add a webhook; prints its id and signing secret (the secret is shown only once)')
    .requiredOption('--events <list>', `comma-separated: ${WEBHOOK_EVENTS.join(', ')}`)
    .option('--secret <secret>', 'the HMAC-SHA256 signing secret (at least 16 characters); default: a random one')
    .action(async (user: string, url: string, o: { events: string; secret?: string }) => {
      const app = await ctx.app();
      const uid = await userId(app, user);
      try {
        const { webhook, secret } = await addWebhook(app, uid, url, [o.events], o.secret);
        ctx.out(
          `added webhook ${webhook.id} -> ${webhook.url} (${webhook.events.join(', ')})${o.secret === undefined ? `\nsigning secret (shown once): ${secret}` : ''}`,
        );
      } catch (e) {
        if (e instanceof WebhookInputError) throw new CliError(e.message, 2);
        throw e;
      }
    });
  hook
    .command('list <user>')
    .description("list a user's webhooks (never their secrets)")
    .option('--json', 'JSON output')
    .action(async (user: string, o: { json?: boolean }) => {
      const app = await ctx.app();
      const list = (await webhookStore(app).list(await userId(app, user))).map((w) => ({
        id: w.id,
        url: w.url,
        events: w.events,
        created_at: iso(w.createdAt),
      }));
      ctx.out(
        o.json
          ? JSON.stringify(list)
          : list.map((w) => `${w.id}\t${w.url}\t${w.events.join(',')}\t${w.created_at}`).join('\n') || '(no webhooks)',
      );
    });
  hook
    .command('remove <user> <id>')
    .description('remove a webhook and its delivery log')
    .action(async (user: string, raw: string) => {
      const app = await ctx.app();
      try {
        await removeWebhook(app, await userId(app, user), numericId(raw));
      } catch (e) {
        if (e instanceof WebhookInputError) throw new CliError(`${e.message} (see tidings webhook list ${user})`, 1);
        throw e;
      }
      ctx.out(`removed webhook ${raw}`);
    });
  hook
    .command('deliveries <user> [id]')
    .description('the delivery log, newest first: status, attempts, last answer or error')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'JSON output')
    .action(async (user: string, raw: string | undefined, o: { limit: string; json?: boolean }) => {
      const app = await ctx.app();
      const uid = await userId(app, user);
      let log: WebhookDelivery[];
      try {
        log = await webhookDeliveries(app, uid, raw === undefined ? null : numericId(raw), Number(o.limit) || 50);
      } catch (e) {
        if (e instanceof WebhookInputError) throw new CliError(`${e.message} (see tidings webhook list ${user})`, 1);
        throw e;
      }
      const rows = log.map((d) => ({
        id: d.id,
        webhook_id: d.webhookId,
        event: d.event,
        status: d.status,
        attempts: d.attempts,
        last_status: d.lastStatus,
        last_error: d.lastError,
        created_at: iso(d.createdAt),
        next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
        finished_at: iso(d.finishedAt),
      }));
      ctx.out(
        o.json
          ? JSON.stringify(rows)
          : rows
              .map((d) =>
                [
                  d.id,
                  `webhook ${d.webhook_id}`,
                  d.event,
                  d.status,
                  `${d.attempts} attempt(s)`,
                  d.last_status ?? '',
                  d.last_error ?? '',
                  d.next_attempt_at ? `next ${d.next_attempt_at}` : '',
                ].join('\t'),
              )
              .join('\n') || '(no deliveries)',
      );
    });
}
