// `tidings oauth-client …` (OAuth app registration) and `tidings token …` (ClientLogin-style
// tokens for scripts, listing and revocation).
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import type { App } from '../../runtime/app.ts';
import type { GrantType, StoredToken } from '../../model/auth.ts';
import { registerClient, ClientRegistrationError, GRANT_TYPES } from '../../auth/oauth/clients.ts';
import { authStore } from '../../auth/repositories.ts';
import { issueClientLoginToken, revokeStoredToken } from '../../auth/tokens.ts';
import { hashToken } from '../../auth/passwords.ts';
import { relativeTime, table } from '../format.ts';

const collect = (value: string, previous: string[]) => [...previous, value];
const iso = (t: number | null) => (t === null ? '' : new Date(t * 1000).toISOString().replace('.000Z', 'Z'));

async function findUser(app: App, username: string) {
  const u = await app.users.findByName(username);
  if (!u) throw new CliError(`no user "${username}" (see tidings user list)`, 1);
  return u;
}

export function registerAuthCommands(program: Command, ctx: CliContext): void {
  const client = program
    .command('oauth-client')
    .description('register the OAuth 2.0 apps that may ask users for access');
  client
    .command('add <name>')
    .description('register an app; prints {"client_id","client_secret"} as JSON (the secret is shown only once)')
    .option('--redirect-uri <uri>', 'a redirect URI, matched exactly (repeat for several)', collect, [])
    .option('--grant-type <type>', `allowed grant (repeat; default: ${GRANT_TYPES.join(' and ')})`, collect, [])
    .action(async (name: string, o: { redirectUri: string[]; grantType: string[] }) => {
      const grants = (o.grantType.length ? o.grantType : [...GRANT_TYPES]) as GrantType[];
      try {
        const { client: c, clientSecret } = await registerClient(
          await ctx.app({ create: true }),
          name,
          o.redirectUri,
          grants,
        );
        ctx.out(
          JSON.stringify({
            client_id: c.clientId,
            client_secret: clientSecret,
            name: c.name,
            redirect_uris: c.redirectUris,
            grant_types: c.grantTypes,
          }),
        );
      } catch (e) {
        if (e instanceof ClientRegistrationError) throw new CliError(e.message, 2);
        throw e;
      }
    });
  client
    .command('list')
    .description('list registered apps (never their secrets)')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const list = (await authStore(await ctx.app()).clients.list()).map((c) => ({
        client_id: c.clientId,
        name: c.name,
        redirect_uris: c.redirectUris,
        grant_types: c.grantTypes,
        created_at: iso(c.createdAt),
      }));
      ctx.out(
        o.json
          ? JSON.stringify(list)
          : list.map((c) => `${c.client_id}\t${c.name}\t${c.redirect_uris.join(' ')}\t${c.created_at}`).join('\n') ||
              '(no OAuth clients)',
      );
    });
  client
    .command('remove <client_id>')
    .description('delete an app and every token issued to it')
    .action(async (clientId: string) => {
      if (!(await authStore(await ctx.app()).clients.delete(clientId)))
        throw new CliError(`no OAuth client "${clientId}" (see tidings oauth-client list)`, 1);
      ctx.out(`removed OAuth client ${clientId} and its tokens`);
    });

  const token = program.command('token').description('API tokens: create for scripts, list, revoke');
  token
    .command('create <user>')
    .description(
      'create a ClientLogin-style token (use as "Authorization: GoogleLogin auth=<token>" or "Bearer <token>")',
    )
    .option('--label <text>', 'a note shown by token list')
    .action(async (username: string, o: { label?: string }) => {
      const app = await ctx.app();
      const { token: t } = await issueClientLoginToken(
        app,
        (await findUser(app, username)).id,
        o.label ?? 'created with tidings token create',
      );
      ctx.out(t);
    });
  token
    .command('list <user>')
    .description("list a user's tokens (never the tokens themselves)")
    .option('--json', 'JSON output')
    .action(async (username: string, o: { json?: boolean }) => {
      const app = await ctx.app();
      const tokens = await authStore(app).tokens.listForUser((await findUser(app, username)).id);
      if (o.json) {
        ctx.out(JSON.stringify(tokens.map(describe)));
        return;
      }
      if (!tokens.length) {
        ctx.out('(no tokens)');
        return;
      }
      const now = Date.now() / 1000;
      ctx.out(
        table(
          ['ID', 'KIND', 'SCOPE', 'STATUS', 'CREATED', 'LAST USED', 'EXPIRES', 'CLIENT', 'LABEL'],
          tokens.map((t) => {
            const d = describe(t);
            return [
              t.id,
              t.kind,
              t.scopes,
              d.status,
              relativeTime(t.createdAt, now),
              relativeTime(t.lastUsedAt, now),
              relativeTime(t.expiresAt, now),
              t.clientId ?? '-',
              t.label ?? '',
            ];
          }),
        ),
      );
    });
  token
    .command('revoke [token-or-id]')
    .description('revoke one token (the token itself or its id from token list), or every token of a user with --all')
    .option('--all <user>', "revoke all of this user's tokens")
    .action(async (target: string | undefined, o: { all?: string }) => {
      const app = await ctx.app();
      const store = authStore(app).tokens;
      if (o.all !== undefined) {
        if (target !== undefined) throw new CliError('give either a token (or id) or --all <user>, not both', 2);
        const n = await store.revokeAllForUser((await findUser(app, o.all)).id, Math.floor(Date.now() / 1000));
        return ctx.out(`revoked ${n} token${n === 1 ? '' : 's'} of ${o.all}`);
      }
      if (!target?.trim())
        throw new CliError('say which token: tidings token revoke <token-or-id>, or --all <user>', 2);
      const t = /^\d+$/.test(target)
        ? await store.findById(Number(target))
        : await store.findByHash(hashToken(target.trim()));
      if (!t)
        throw new CliError(
          `no such token${/^\d+$/.test(target) ? ` with id ${target}` : ''} (see tidings token list <user>)`,
          1,
        );
      if (t.revokedAt !== null) return ctx.out(`token ${t.id} was already revoked`);
      const n = await revokeStoredToken(app, t);
      ctx.out(`revoked token ${t.id}${n > 1 ? ` and ${n - 1} other token(s) of the same OAuth grant` : ''}`);
    });
}

function describe(t: StoredToken) {
  const now = Math.floor(Date.now() / 1000);
  const status = t.revokedAt !== null ? 'revoked' : t.expiresAt <= now ? 'expired' : 'active';
  return {
    id: t.id,
    kind: t.kind,
    scope: t.scopes,
    status,
    client_id: t.clientId,
    label: t.label,
    created_at: iso(t.createdAt),
    expires_at: iso(t.expiresAt),
    last_used_at: iso(t.lastUsedAt) || null,
    revoked_at: iso(t.revokedAt) || null,
  };
}
