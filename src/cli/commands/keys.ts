// Operator commands of the chat completions API: API keys, access requests for higher rate
// limits, usage and cost reports.
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import { chatStore } from '../../chat-api/repositories.ts';
import { createApiKey, keyNameProblem } from '../../auth/api-keys.ts';
import { BETA_FEATURES, type ApiKey, type BetaFeature } from '../../model/chat.ts';
import type { App } from '../../runtime/app.ts';
import { pricesConfigured } from '../../chat-api/prices.ts';

const iso = (s: number | null) => (s === null ? '' : new Date(s * 1000).toISOString().replace('.000Z', 'Z'));

async function userId(app: App, username: string): Promise<number> {
  const u = await app.users.findByName(username);
  if (!u) throw new CliError(`no user "${username}" (create one with \`tidings user add ${username}\`)`, 1);
  return u.id;
}

async function keyById(app: App, id: string): Promise<ApiKey> {
  const k = await chatStore(app).keys.findById(id.replace(/^tdg_/, '').split('_')[0]);
  if (!k) throw new CliError(`no API key with id "${id}" (see \`tidings key list\`)`, 1);
  return k;
}

function checkKeyName(name: string): void {
  const problem = keyNameProblem(name);
  if (problem) throw new CliError(problem, 2);
}

function parseTier(s: string): number {
  if (!/^[0-5]$/.test(s.trim())) throw new CliError(`tier must be an integer from 0 to 5, got "${s}"`, 2);
  return Number(s);
}

const keyStatus = (k: ApiKey) => (k.revokedAt !== null ? 'revoked' : k.disabled ? 'disabled' : 'active');

export function registerKeyCommands(program: Command, ctx: CliContext): void {
  const key = program.command('key').description('manage chat completions API keys');

  key
    .command('create <user>')
    .description('create an API key for a user; prints only the key (shown once)')
    .option('--name <name>', 'a name to recognize the key by', '')
    .option('--tier <n>', 'rate-limit tier 0-5 (default: defaultTier)')
    .action(async (username: string, o: { name: string; tier?: string }) => {
      const app = await ctx.app();
      const tier = o.tier === undefined ? app.config.defaultTier : parseTier(o.tier);
      checkKeyName(o.name);
      const { key: secret } = await createApiKey(chatStore(app).keys, await userId(app, username), o.name, tier);
      ctx.out(secret);
    });

  key
    .command('list [user]')
    .description("list API keys (all, or one user's)")
    .option('--json', 'JSON output')
    .action(async (username: string | undefined, o: { json?: boolean }) => {
      const app = await ctx.app();
      const keys = await chatStore(app).keys.list(username === undefined ? undefined : await userId(app, username));
      const names = new Map((await app.users.list()).map((u) => [u.id, u.username]));
      if (o.json) {
        ctx.out(
          JSON.stringify(keys.map((k) => ({ ...k, username: names.get(k.userId) ?? null, status: keyStatus(k) }))),
        );
        return;
      }
      ctx.out(
        keys.length === 0
          ? '(no API keys)'
          : [
              'ID\tUSER\tNAME\tTIER\tSTATUS\tBETA FEATURES\tCREATED',
              ...keys.map((k) =>
                [
                  k.id,
                  names.get(k.userId) ?? k.userId,
                  k.name,
                  k.tier,
                  keyStatus(k),
                  k.features.join(',') || '-',
                  iso(k.createdAt),
                ].join('\t'),
              ),
            ].join('\n'),
      );
    });

  key
    .command('revoke <key-id>')
    .description('revoke a key for good (requests with it get 401)')
    .action(async (id: string) => {
      const app = await ctx.app();
      const k = await keyById(app, id);
      if (!(await chatStore(app).keys.revoke(k.id))) throw new CliError(`key ${k.id} was already revoked`, 1);
      ctx.out(`revoked key ${k.id}`);
    });

  key
    .command('rename <key-id> <name>')
    .description('rename a key')
    .action(async (id: string, name: string) => {
      const app = await ctx.app();
      const k = await keyById(app, id);
      checkKeyName(name);
      await chatStore(app).keys.rename(k.id, name);
      ctx.out(`renamed key ${k.id} to "${name}"`);
    });

  for (const [cmd, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    key
      .command(`${cmd} <key-id>`)
      .description(disabled ? 'suspend a key (requests get 403) until enabled again' : 're-enable a disabled key')
      .action(async (id: string) => {
        const app = await ctx.app();
        const k = await keyById(app, id);
        await chatStore(app).keys.setDisabled(k.id, disabled);
        ctx.out(`${cmd}d key ${k.id}`);
      });
  }

  key
    .command('approve <key-id>')
    .description(`approve beta features for a key (${BETA_FEATURES.join(', ')})`)
    .requiredOption('--feature <feature...>', `${BETA_FEATURES.join('|')}|all (repeatable)`)
    .option('--revoke', 'withdraw the approval instead')
    .action(async (id: string, o: { feature: string[]; revoke?: boolean }) => {
      const app = await ctx.app();
      const k = await keyById(app, id);
      const wanted = new Set<BetaFeature>();
      for (const f of o.feature.flatMap((x) => x.split(','))) {
        if (f === 'all') BETA_FEATURES.forEach((b) => wanted.add(b));
        else if ((BETA_FEATURES as readonly string[]).includes(f)) wanted.add(f as BetaFeature);
        else throw new CliError(`unknown feature "${f}": use ${BETA_FEATURES.join(', ')} or all`, 2);
      }
      const features = o.revoke ? k.features.filter((f) => !wanted.has(f)) : [...new Set([...k.features, ...wanted])];
      await chatStore(app).keys.setFeatures(k.id, features);
      ctx.out(`key ${k.id} beta features: ${features.join(', ') || '(none)'}`);
    });

  key
    .command('tier <key-id> <tier>')
    .description('set the rate-limit tier (0-5) of a key; applies at once')
    .action(async (id: string, tier: string) => {
      const app = await ctx.app();
      const k = await keyById(app, id);
      await chatStore(app).keys.setTier(k.id, parseTier(tier));
      ctx.out(`key ${k.id} is now at tier ${tier}`);
    });

  registerAccessCommands(program, ctx);
  registerUsageCommand(program, ctx);
}

function registerAccessCommands(program: Command, ctx: CliContext): void {
  const access = program.command('access').description('review requests for higher rate limits (the access form)');
  access
    .command('list')
    .description('list pending requests')
    .option('--all', 'include decided requests')
    .option('--json', 'JSON output')
    .action(async (o: { all?: boolean; json?: boolean }) => {
      const reqs = await chatStore(await ctx.app()).access.list(o.all ? undefined : 'pending');
      if (o.json) {
        ctx.out(JSON.stringify(reqs));
        return;
      }
      ctx.out(
        reqs.length === 0
          ? o.all
            ? '(no access requests)'
            : '(no pending access requests)'
          : [
              'ID\tKEY\tUSER\tTIER\tREQUESTED\tSTATUS\tCREATED\tREASON',
              ...reqs.map((r) =>
                [
                  r.id,
                  r.keyId,
                  r.username,
                  r.currentTier,
                  r.requestedTier,
                  r.status,
                  iso(r.createdAt),
                  r.reason.replace(/\s+/g, ' '),
                ].join('\t'),
              ),
            ].join('\n'),
      );
    });

  const requestById = async (app: App, id: string) => {
    if (!/^\d+$/.test(id)) throw new CliError(`request id must be a number, got "${id}"`, 2);
    const r = await chatStore(app).access.find(Number(id));
    if (!r) throw new CliError(`no access request #${id} (see \`tidings access list --all\`)`, 1);
    if (r.status !== 'pending') throw new CliError(`access request #${id} was already ${r.status}`, 1);
    return r;
  };

  access
    .command('approve <request-id>')
    .description("approve a request: sets the key's tier (at once)")
    .option('--tier <n>', 'grant this tier instead of the requested one')
    .action(async (id: string, o: { tier?: string }) => {
      const app = await ctx.app();
      const r = await requestById(app, id);
      const tier = o.tier === undefined ? r.requestedTier : parseTier(o.tier);
      const store = chatStore(app);
      await store.access.decide(r.id, 'approved', tier, null);
      await store.keys.setTier(r.keyId, tier);
      ctx.out(`approved request #${r.id}: key ${r.keyId} (${r.username}) is now at tier ${tier}`);
    });

  access
    .command('deny <request-id>')
    .description('deny a request')
    .option('--note <text>', 'why (kept with the request)')
    .action(async (id: string, o: { note?: string }) => {
      const app = await ctx.app();
      const r = await requestById(app, id);
      await chatStore(app).access.decide(r.id, 'denied', null, o.note ?? null);
      ctx.out(`denied request #${r.id}`);
    });
}

function registerUsageCommand(program: Command, ctx: CliContext): void {
  program
    .command('usage')
    .description('chat API usage and cost, totals by key and model')
    .option('--user <name>', "only this user's keys")
    .option('--since <date>', 'from this day (YYYY-MM-DD, UTC) or ISO time on')
    .option('--json', 'JSON output')
    .action(async (o: { user?: string; since?: string; json?: boolean }) => {
      const app = await ctx.app();
      let since: number | undefined;
      if (o.since !== undefined) {
        const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(o.since) ? `${o.since}T00:00:00Z` : o.since);
        if (Number.isNaN(t)) throw new CliError(`--since must be a date like 2026-11-01, got "${o.since}"`, 2);
        since = Math.floor(t / 1000);
      }
      const rows = await chatStore(app).usage.totals({
        userId: o.user === undefined ? undefined : await userId(app, o.user),
        since,
      });
      if (o.json) {
        ctx.out(JSON.stringify(pricesConfigured(app.config) ? rows : rows.map((r) => ({ ...r, cost: null }))));
        return;
      }
      if (rows.length === 0) {
        ctx.out('(no usage recorded)');
        return;
      }
      const total = rows.reduce((a, r) => ({ requests: a.requests + r.requests, cost: a.cost + r.cost }), {
        requests: 0,
        cost: 0,
      });
      // Costs only with prices configured: a personal server's answers cost nothing to the vendor.
      const costs = pricesConfigured(app.config);
      const cost = (x: number) => (costs ? [x.toFixed(6)] : []);
      ctx.out(
        [
          [
            'USER',
            'KEY',
            'NAME',
            'MODEL',
            'REQUESTS',
            'ERRORS',
            'PROMPT',
            'COMPLETION',
            'REASONING',
            'CITATION',
            'SEARCHES',
            ...(costs ? ['COST_USD'] : []),
          ].join('\t'),
          ...rows.map((r) =>
            [
              r.username,
              r.keyId,
              r.keyName,
              r.model,
              r.requests,
              r.errors,
              r.promptTokens,
              r.completionTokens,
              r.reasoningTokens,
              r.citationTokens,
              r.searchQueries,
              ...cost(r.cost),
            ].join('\t'),
          ),
          ['TOTAL', '', '', '', total.requests, '', '', '', '', '', '', ...cost(total.cost)].join('\t'),
          ...(costs
            ? []
            : [
                "(no costs shown: no prices configured; TIDINGS_PRICE_TABLE=sonar prices answers as Perplexity's Sonar API would)",
              ]),
        ].join('\n'),
      );
    });
}
