import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { authStore } from '../../auth/store.ts';

export { USERNAME_RE } from '../../auth/accounts.ts';
import { USERNAME_RE } from '../../auth/accounts.ts';

export function registerUserCommands(program: Command, ctx: CliContext): void {
  const user = program.command('user').description('manage user accounts');
  user.command('add <username>')
    .description('create a user (password from --password or TIDINGS_PASSWORD)')
    .option('--password <password>', 'the password (at least 8 characters)')
    .option('--email <email>', 'e-mail address shown to clients')
    .action(async (username: string, o: { password?: string; email?: string }) => {
      if (!USERNAME_RE.test(username)) throw new CliError(`invalid username "${username}": use 1-64 letters, digits, . _ @ - (starting with a letter or digit)`, 2);
      const password = o.password ?? process.env.TIDINGS_PASSWORD;
      if (!password) throw new CliError('a password is required: pass --password or set TIDINGS_PASSWORD', 2);
      if (password.length < 8) throw new CliError('the password must be at least 8 characters long', 2);
      const app = await ctx.app();
      if (await app.users.findByName(username)) throw new CliError(`user "${username}" already exists`, 1);
      const u = await app.users.create(username, await hashPassword(password), o.email ?? null);
      ctx.out(`created user ${u.username} (id ${u.id})`);
    });
  user.command('list').description('list users').option('--json', 'JSON output').action(async (o: { json?: boolean }) => {
    const users = await (await ctx.app()).users.list();
    ctx.out(o.json ? JSON.stringify(users) : users.map((u) => `${u.id}\t${u.username}\t${u.email ?? ''}`).join('\n') || '(no users)');
  });
  user.command('passwd <username>').description('set a new password').requiredOption('--password <password>', 'the new password')
    .action(async (username: string, o: { password: string }) => {
      if (o.password.length < 8) throw new CliError('the password must be at least 8 characters long', 2);
      const app = await ctx.app();
      const u = await app.users.findByName(username);
      if (!u) throw new CliError(`no user "${username}"`, 1);
      await app.users.setPasswordHash(u.id, await hashPassword(o.password));
      // A new password is usually a reaction to a leak: sessions opened with the old one end too.
      const revoked = await authStore(app).tokens.revokeAllForUser(u.id, Math.floor(Date.now() / 1000));
      ctx.out(`password of ${u.username} changed; ${revoked} token(s) revoked`);
    });
}
