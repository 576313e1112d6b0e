// `tidings user …`. Account rules (username syntax, password length, e-mail, duplicates) are the
// domain's (src/auth/accounts.ts), the same as the web app's setup and admin API: an AccountError
// is printed by main.ts as one line (exit 2 for invalid input, 1 otherwise).
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import { checkEmail, checkPassword, checkUsername, createAccount, setPassword } from '../../auth/accounts.ts';
import { canPrompt, promptNewPassword } from '../prompt.ts';

/** --password, else TIDINGS_PASSWORD, else a hidden prompt on a terminal; checked before any database work. */
async function newPassword(given: string | undefined): Promise<string> {
  let password = given ?? process.env.TIDINGS_PASSWORD;
  if (!password) {
    if (!canPrompt())
      throw new CliError(
        'a password is required: pass --password or set TIDINGS_PASSWORD (on a terminal you are asked for it)',
        2,
      );
    password = await promptNewPassword();
  }
  checkPassword(password);
  return password;
}

export function registerUserCommands(program: Command, ctx: CliContext): void {
  const user = program.command('user').description('manage user accounts');
  user
    .command('add <username>')
    .description(
      'create a user (password from --password, TIDINGS_PASSWORD, or asked on a terminal); the first user is the admin',
    )
    .option(
      '--password <password>',
      'the password (at least 8 characters); omit it on a terminal to be asked without echo',
    )
    .option('--email <email>', 'e-mail address shown to clients')
    .option(
      '--admin',
      'make this user an admin (the first user always is): their API keys get beta features without approval',
    )
    .action(async (username: string, o: { password?: string; email?: string; admin?: boolean }) => {
      // Everything that can be checked before asking for a password or creating a database is.
      checkUsername(username);
      checkEmail(o.email ?? null);
      const password = await newPassword(o.password);
      const app = await ctx.app({ create: true });
      const first = (await app.users.list()).length === 0;
      const u = await createAccount(app, username, password, o.email ?? null);
      if (first || o.admin) await app.users.setAdmin(u.id, true);
      ctx.out(`created user ${u.username} (id ${u.id})${first || o.admin ? ', an admin' : ''}`);
    });
  user
    .command('remove <username>')
    .description(
      'delete a user with their subscriptions, article states, tokens and API keys (usage records stay for accounting)',
    )
    .option('--yes', 'confirm: this cannot be undone (take a backup first: tidings backup <file>)')
    .action(async (username: string, o: { yes?: boolean }) => {
      const app = await ctx.app();
      const u = await app.users.findByName(username);
      if (!u) throw new CliError(`no user "${username}" (see tidings user list)`, 1);
      if (!o.yes)
        throw new CliError(
          `this deletes ${u.username} and all their data for good; run again with --yes to confirm`,
          2,
        );
      await app.users.delete(u.id);
      ctx.out(`removed user ${u.username}`);
    });
  user
    .command('admin <username>')
    .description(
      'make a user an admin (their API keys get beta features without approval), or with --revoke a regular user',
    )
    .option('--revoke', 'take admin rights away')
    .action(async (username: string, o: { revoke?: boolean }) => {
      const app = await ctx.app();
      const u = await app.users.findByName(username);
      if (!u) throw new CliError(`no user "${username}" (see tidings user list)`, 1);
      await app.users.setAdmin(u.id, !o.revoke);
      ctx.out(`${u.username} is ${o.revoke ? 'no longer' : 'now'} an admin`);
    });
  user
    .command('list')
    .description('list users')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const users = await (await ctx.app()).users.list();
      ctx.out(
        o.json
          ? JSON.stringify(users)
          : users.length === 0
            ? '(no users)'
            : [
                'ID\tUSERNAME\tEMAIL\tADMIN',
                ...users.map((u) => `${u.id}\t${u.username}\t${u.email ?? ''}\t${u.isAdmin ? 'yes' : ''}`),
              ].join('\n'),
      );
    });
  user
    .command('passwd <username>')
    .description('set a new password (asked on a terminal when --password is omitted)')
    .option('--password <password>', 'the new password (at least 8 characters)')
    .action(async (username: string, o: { password?: string }) => {
      const password = await newPassword(o.password);
      const app = await ctx.app();
      const u = await app.users.findByName(username);
      if (!u) throw new CliError(`no user "${username}"`, 1);
      // Also ends every token of the user: a new password is usually a reaction to a leak.
      const revoked = await setPassword(app, u.id, password);
      ctx.out(`password of ${u.username} changed; ${revoked} token(s) revoked`);
    });
}
