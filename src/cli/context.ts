// What every `tidings` subcommand gets: the App (opened on first use) and output, and the one
// error type whose message the command prints. Kept apart from main.ts so the commands do not
// import the file that imports them.
import type { App } from '../app.ts';
import type { Config } from '../config/config.ts';

/** An error whose message is shown as one line, with exit code 2 (bad usage) or 1 (failure). */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) { super(message); this.exitCode = exitCode; }
}

export interface CliContext {
  /** Opens the App lazily (so `--help` needs no database) and closes it when the command ends. */
  app(): Promise<App>;
  config(): Config;
  out(text: string): void;
}
