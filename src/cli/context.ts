// What every `tidings` subcommand gets: the App (opened on first use) and output, and the one
// error type whose message the command prints. Kept apart from main.ts so the commands do not
// import the file that imports them.
import { existsSync } from 'node:fs';
import type { App } from '../runtime/app.ts';
import type { Config } from '../config/config.ts';
import { sqliteFile, type StoreWorkload } from '../store/open-store.ts';

/** An error whose message is shown as one line, with exit code 2 (bad usage) or 1 (failure). */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

export interface AppOptions {
  /**
   * May this command create the database when the data folder has none? Only commands that put
   * the first data in (user add, oauth-client add, serve) do: a read command run against the wrong
   * folder must say where it looked instead of answering from a new empty database.
   */
  create?: boolean;
  /**
   * How the command uses the database: `batch` for one that mostly writes and then exits
   * (`tidings refresh`: on SQLite, no memory map and a smaller page cache; store/open-store.ts,
   * StoreWorkload). Default `serve`.
   */
  workload?: StoreWorkload;
}

export interface CliContext {
  /** Opens the App lazily (so `--help` needs no database) and closes it when the command ends. */
  app(opts?: AppOptions): Promise<App>;
  /** The configuration; `flags` (e.g. serve's --port) apply on top of --set, and only on the first call. */
  config(flags?: Record<string, string | undefined>): Config;
  out(text: string): void;
}

/**
 * Refuses to go on without a database when the command may not create one, naming the folder;
 * says whether one will be created, so the caller can tell stderr which folder it used. A
 * database server (TIDINGS_DATABASE_URL=postgres://…) is not checked here.
 */
export async function checkDatabase(config: Config, opts: AppOptions): Promise<{ created: boolean }> {
  const file = await sqliteFile({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  if (file === null || file === ':memory:' || existsSync(file)) return { created: false };
  if (!opts.create) {
    const where = config.databaseUrl.trim() ? file : `${config.dataDir} (looked for tidings.db there)`;
    throw new CliError(
      `no Tidings database in ${where}. Create a user with \`tidings user add <name>\` to start one, or point --data or TIDINGS_DATA at the folder that holds your data`,
      1,
    );
  }
  return { created: true };
}
