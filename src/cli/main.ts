// The `tidings` command. Each domain adds its subcommands in ./commands/<domain>.ts; this file
// only sets up global options, error handling and the App lifecycle.
//
// Only commander, the version and ./context.ts load up front: `tidings --version`, `--help` and a
// mistyped command print from the table in ./command-index.ts without loading any command's
// module, the configuration or the App (0.9 s of module loading before; BENCHMARKS.md, "CLI start").
import { Command, CommanderError, Help } from 'commander';
import type { Config } from '../config/config.ts';
import { VERSION } from '../config/install.ts';
import type { App } from '../runtime/app.ts';
import type { LogFormat } from '../log/logger.ts';
import { CliError, checkDatabase, type CliContext } from './context.ts';
import { COMMAND_INDEX } from './command-index.ts';

export { CliError, type CliContext };

const collect = (value: string, previous: string[]) => [...previous, value];

type RegisterCommands = (program: Command, ctx: CliContext) => void;

/**
 * Each top-level command and the module that registers it, in help order. A module is loaded only
 * when its command runs (or for help and unknown commands, all of them): `tidings serve` and each
 * of its workers would otherwise load the code of every other command (the answer pipeline of
 * `ask`, the database copier…), about 10 MB of an idle server's memory (BENCHMARKS.md, Memory).
 */
const COMMAND_MODULES: { names: readonly string[]; load: () => Promise<RegisterCommands> }[] = [
  { names: ['user'], load: async () => (await import('./commands/users.ts')).registerUserCommands },
  {
    names: ['feed', 'opml', 'refresh'],
    load: async () => {
      const [feeds, settings] = await Promise.all([
        import('./commands/feeds.ts'),
        import('./commands/feed-settings.ts'),
      ]);
      return (program, ctx) => {
        feeds.registerFeedCommands(program, ctx);
        settings.registerFeedSettingCommands(program, ctx);
      };
    },
  },
  { names: ['oauth-client', 'token'], load: async () => (await import('./commands/auth.ts')).registerAuthCommands },
  { names: ['key', 'access', 'usage'], load: async () => (await import('./commands/keys.ts')).registerKeyCommands },
  { names: ['ask'], load: async () => (await import('./commands/ask.ts')).registerAskCommands },
  { names: ['search'], load: async () => (await import('./commands/search.ts')).registerSearchCommands },
  { names: ['serve'], load: async () => (await import('./commands/serve.ts')).registerServeCommand },
  {
    names: ['backup', 'restore', 'prune'],
    load: async () => (await import('./commands/maintenance.ts')).registerMaintenanceCommands,
  },
  { names: ['migrate', 'db'], load: async () => (await import('./commands/db.ts')).registerDbCommands },
  { names: ['fever-password'], load: async () => (await import('./commands/fever.ts')).registerFeverCommands },
  { names: ['rule'], load: async () => (await import('./commands/rules.ts')).registerRuleCommands },
  { names: ['webhook'], load: async () => (await import('./commands/webhooks.ts')).registerWebhookCommands },
  { names: ['model'], load: async () => (await import('./commands/models.ts')).registerModelCommands },
];

/** The program and its global options, without any command. */
function baseProgram(): Command {
  return (
    new Command('tidings')
      .description('Tidings: self-hosted feed reader (Google Reader API) and search-grounded chat completions')
      .option('--data <dir>', 'data folder (TIDINGS_DATA)')
      .option('--config <file>', 'config file (TIDINGS_CONFIG)')
      // Repeatable rather than variadic, so the subcommand after it is not taken for another pair.
      .option('--set <key=value>', 'set any configuration option (repeatable)', collect, [] as string[])
      .option('-v, --verbose', 'log to stderr')
      .version(VERSION, '-V, --version', 'print the version')
      .exitOverride()
      .configureOutput({ writeErr: (s) => process.stderr.write(s) })
  );
}

/**
 * The program as `tidings --help` shows it, from ./command-index.ts: each command's name, usage
 * and description, none of its code (test/cli-start.test.ts checks that it prints the same help
 * as the program with every command).
 */
export function helpProgram(): Command {
  const program = baseProgram();
  for (const c of COMMAND_INDEX) program.command(c.name).description(c.description);
  const terms = new Map(COMMAND_INDEX.map((c) => [c.name, c.term]));
  const help = new Help();
  return program.configureHelp({ subcommandTerm: (cmd) => terms.get(cmd.name()) ?? help.subcommandTerm(cmd) });
}

/** Whether `command` is one of the CLI's commands (`help` is commander's own). */
function knownCommand(command: string | undefined): command is string {
  return command !== undefined && COMMAND_MODULES.some((m) => m.names.includes(command));
}

/**
 * The program with every command, or with only `command`'s when it names one (the launcher
 * passes the subcommand it found in argv; see scripts/process-setup.js commandOf).
 */
export async function buildProgram(ctx: CliContext, command?: string): Promise<Command> {
  const program = baseProgram();
  const only = COMMAND_MODULES.filter((m) => command !== undefined && m.names.includes(command));
  const registrars = await Promise.all((only.length ? only : COMMAND_MODULES).map((m) => m.load()));
  for (const register of registrars) register(program, ctx);
  return program;
}

function commanderExitCode(e: CommanderError): number {
  return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help' ? 0 : 2;
}

/** Prints a command's error as one line; the exit code. */
async function reportError(e: unknown): Promise<number> {
  // The classes of the errors a command may raise, from modules that command has loaded already.
  const [{ ConfigError }, { StoreUnavailableError }, { AccountError }] = await Promise.all([
    import('../config/config.ts'),
    import('../store/open-store.ts'),
    import('../auth/accounts.ts'),
  ]);
  if (e instanceof CliError) {
    process.stderr.write(`tidings: ${e.message}\n`);
    return e.exitCode;
  }
  if (e instanceof AccountError) {
    // The account rules' own words (the web app shows the same ones); invalid input is a usage error.
    process.stderr.write(`tidings: ${e.message}\n`);
    return e.code === 'invalid' ? 2 : 1;
  }
  if (e instanceof ConfigError || e instanceof StoreUnavailableError) {
    process.stderr.write(`tidings: ${e.message}\n`);
    return 2;
  }
  process.stderr.write(`tidings: ${(e as Error)?.message ?? String(e)}\n`);
  return 1;
}

/**
 * Runs the CLI; `command` is the subcommand in argv when the caller knows it (loads only its code).
 * Without one that is known (`--version`, `--help`, a typo) nothing runs but commander's own
 * output, from the help program.
 */
export async function main(argv: string[], command?: string): Promise<void> {
  let app: Promise<App> | undefined;
  let config: Config | undefined;
  let program: Command;
  // `tidings help <command>` is the help of that command: its module is loaded.
  const args = argv.slice(2);
  const helpFor = command === 'help' ? args.slice(args.indexOf('help') + 1).find((a) => !a.startsWith('-')) : undefined;
  const runs = knownCommand(command) || knownCommand(helpFor);
  // Loaded only when a command runs (getConfig is synchronous: the commands ask for it in place).
  const configModule = runs ? await import('../config/config.ts') : undefined;
  const getConfig = (extra: Record<string, string | undefined> = {}): Config => {
    if (!configModule) throw new Error('no command runs: no configuration to load');
    const { loadConfig, parseSetFlags } = configModule;
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
          const [{ createApp }, { SINGLE_PROCESS }, { createLogger, silentLogger }] = await Promise.all([
            import('../server/create-app.ts'),
            import('../runtime/app.ts'),
            import('../log/logger.ts'),
          ]);
          const opened = await createApp(
            c,
            program.opts().verbose ? createLogger(c.logLevel, c.logFormat as LogFormat) : silentLogger,
            { ...SINGLE_PROCESS, workload: opts.workload },
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
  program = runs ? await buildProgram(ctx, helpFor ?? command) : helpProgram();
  let code = 0;
  try {
    await program.parseAsync(argv);
  } catch (e) {
    code = e instanceof CommanderError ? commanderExitCode(e) : await reportError(e);
  } finally {
    if (app)
      await app.then(
        (a) => a.close(),
        () => undefined,
      );
  }
  process.exitCode = code;
}
