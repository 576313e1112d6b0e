// `tidings fever-password <user>`: turns on the Fever API for a user with its own password (the
// Fever api_key is md5(username:password), so it must never be the account password).
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import {
  disableFever,
  FeverCredentialError,
  generateFeverPassword,
  setFeverPassword,
} from '../../auth/fever-credentials.ts';

export function registerFeverCommands(program: Command, ctx: CliContext): void {
  program
    .command('fever-password <username>')
    .description('enable the Fever API (/fever/) for a user with a separate Fever password; prints it when generated')
    .option(
      '--password <password>',
      'the Fever password (at least 8 characters, not the account password); default: a random one, printed once',
    )
    .option('--disable', 'turn the Fever API off for this user')
    .action(async (username: string, o: { password?: string; disable?: boolean }) => {
      const app = await ctx.app();
      const user = await app.users.findByName(username);
      if (!user) throw new CliError(`no user "${username}" (see tidings user list)`, 1);
      if (o.disable) {
        if (o.password !== undefined) throw new CliError('give either --password or --disable, not both', 2);
        return ctx.out(
          (await disableFever(app, user.id))
            ? `Fever API disabled for ${user.username}`
            : `the Fever API was not enabled for ${user.username}`,
        );
      }
      const password = o.password ?? generateFeverPassword();
      try {
        await setFeverPassword(app, user.username, password);
      } catch (e) {
        if (e instanceof FeverCredentialError) throw new CliError(e.message, 2);
        throw e;
      }
      ctx.out(
        o.password === undefined
          ? `Fever API enabled for ${user.username}. In the Fever app use the server URL <base>/fever/, user ${user.username} and this password (shown once):\n${password}`
          : `Fever API enabled for ${user.username} (server URL <base>/fever/); any previous Fever password no longer works`,
      );
    });
}
