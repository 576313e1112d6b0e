// The `tidings` command. Each domain adds its subcommands in ./commands/<domain>.ts; this file
// only sets up global options, error handling and the App lifecycle.
import { Command, CommanderError } from 'commander';
import { loadConfig, ConfigError, parseSetFlags, type Config } from '../config/config.ts';
import { VERSION } from '../config/install.ts';
import { createApp, type App } from '../app.ts';
import { silentLogger, createLogger, type LogFormat } from '../log/logger.ts';
import { registerUserCommands } from './commands/users.ts';
import { registerFeedCommands } from './commands/feeds.ts';
import { registerAuthCommands } from './commands/auth.ts';
import { registerKeyCommands } from './commands/keys.ts';
import { registerAskCommands } from './commands/ask.ts';
import { registerSearchCommands } from './commands/search.ts';
import { registerServeCommand } from './commands/serve.ts';
import { registerMaintenanceCommands } from './commands/maintenance.ts';
import { registerDbCommands } from './commands/db.ts';
import { registerFeverCommands } from './commands/fever.ts';
import { registerRuleCommands } from './commands/rules.ts';
import { registerFeedSettingCommands } from './commands/feed-settings.ts';
import { registerWebhookCommands } from './commands/webhooks.ts';

import { CliError, checkDatabase, type CliContext } from './context.ts';
import { StoreUnavailableError } from '../store/open-store.ts';
import { AccountError } from '../auth/accounts.ts';

export { CliError, type CliContext };

const collect = (value: string, previous: string[]) => [...previous, value];

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('tidings')
    .description('Tidings: self-hosted feed reader (Google Reader API) and search-grounded chat completions')
    .option('--data <dir>', 'data folder (TIDINGS_DATA)')
    .option('--config <file>', 'config file (TIDINGS_CONFIG)')
    // Repeatable rather than variadic, so the subcommand after it is not taken for another pair.
    .option('--set <key=value>', 'set any configuration option (repeatable)', collect, [] as string[])
    .option('-v, --verbose', 'log to stderr')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  registerUserCommands(program, ctx);
  registerFeedCommands(program, ctx);
  registerAuthCommands(program, ctx);
  registerKeyCommands(program, ctx);
  registerAskCommands(program, ctx);
  registerSearchCommands(program, ctx);
  registerServeCommand(program, ctx);
  registerMaintenanceCommands(program, ctx);
  registerDbCommands(program, ctx);
  registerFeverCommands(program, ctx);
  registerRuleCommands(program, ctx);
  registerFeedSettingCommands(program, ctx);
  registerWebhookCommands(program, ctx);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  let app: Promise<App> | undefined;
  let config: Config | undefined;
  let program: Command;
  const getConfig = (extra: Record<string, string | undefined> = {}): Config => {
    if (!config) {
      const o = program.opts<{ data?: string; config?: string; set?: string[]; verbose?: boolean }>();
      const env = { ...process.env };
      if (o.config) env.TIDINGS_CONFIG = o.config;
      config = loadConfig({
        env,
        flags: { ...parseSetFlags(o.set), ...(o.data ? { dataDir: o.data } : {}), ...extra },
      });
    }
    return config;
  };
  const ctx: CliContext = {
    config: getConfig,
    app(opts = {}) {
      if (!app) {
        const c = getConfig();
        app = (async () => {
          const { created } = await checkDatabase(c, opts);
          const opened = await createApp(
            c,
            program.opts().verbose ? createLogger(c.logLevel, c.logFormat as LogFormat) : silentLogger,
          );
          if (created) process.stderr.write(`tidings: created a new database in ${c.dataDir}\n`);
          return opened;
        })();
      }
      return app;
    },
    out(text) {
      process.stdout.write(text.endsWith('\n') ? text : text + '\n');
    },
  };
  program = buildProgram(ctx);
  let code = 0;
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      code =
        e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help' ? 0 : 2;
    } else if (e instanceof CliError) {
      process.stderr.write(`tidings: ${e.message}\n`);
      code = e.exitCode;
    } else if (e instanceof AccountError) {
      // The account rules' own words (the web app shows the same ones); invalid input is a usage error.
      process.stderr.write(`tidings: ${e.message}\n`);
      code = e.code === 'invalid' ? 2 : 1;
    } else if (e instanceof ConfigError || e instanceof StoreUnavailableError) {
      process.stderr.write(`tidings: ${e.message}\n`);
      code = 2;
    } else {
      process.stderr.write(`tidings: ${(e as Error)?.message ?? String(e)}\n`);
      code = 1;
    }
  } finally {
    if (app)
      await app.then(
        (a) => a.close(),
        () => undefined,
      );
  }
  process.exitCode = code;
}
