// `tidings serve` (what `npm start` runs): both APIs on one HTTP server, feeds refreshed on
// schedule, until SIGINT/SIGTERM. It takes the same --data/--config/--set as every other command,
// so the server and the CLI cannot end up on different databases.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { flushCompileCache } from 'node:module';
import { join } from 'node:path';
import type { Command } from 'commander';
import { type CliContext, CliError, checkDatabase } from '../context.ts';
import { createApp } from '../../app.ts';
import { createLogger, type LogFormat } from '../../log/logger.ts';
import { startScheduler } from '../../feeds/scheduler/scheduler.ts';

const PID_FILE = 'serve.pid';

/** Leaves <data>/serve.pid while serving, so `tidings restore` can refuse to swap the database under it. */
function markServing(dataDir: string, onClose: (fn: () => void) => void): void {
  const file = join(dataDir, PID_FILE);
  writeFileSync(file, `${process.pid}\n`);
  onClose(() => rmSync(file, { force: true }));
}

/** The pid of a server running on this data folder, if any (a stale file of a crashed one is ignored). */
export function runningServerPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, PID_FILE), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

export function registerServeCommand(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description(
      'serve the Google Reader API and the chat completions API, and refresh feeds on schedule, until stopped (SIGINT/SIGTERM)',
    )
    .option('--port <port>', 'HTTP port (TIDINGS_PORT; 0 picks a free one)')
    .option('--host <address>', 'address to listen on (TIDINGS_HOST; 0.0.0.0 for the LAN)')
    .action(async (o: { port?: string; host?: string }) => {
      const config = ctx.config({ port: o.port, host: o.host });
      const { created } = await checkDatabase(config, { create: true });
      const app = await createApp(config, createLogger(config.logLevel, config.logFormat as LogFormat));
      if (created) app.log.info({ dataDir: config.dataDir }, 'created a new database');
      let url: string;
      try {
        // Loaded here, not at the top: other commands need neither Fastify nor the metrics registry.
        const { startServer } = await import('../../http/server.ts');
        ({ url } = await startServer(app));
      } catch (e) {
        await app.close();
        const err = e as NodeJS.ErrnoException;
        if (err.code === 'EADDRINUSE' || err.code === 'EACCES') {
          throw new CliError(
            `cannot listen on ${config.host}:${config.port} (${err.code}): choose another port with --port <port> or TIDINGS_PORT (or another address with --host)`,
            2,
          );
        }
        throw e;
      }
      app.log.info({ url, dataDir: config.dataDir }, 'tidings is serving');
      // Node writes its compile cache (scripts/process-setup.js) at exit, which a server killed or
      // stopped by its supervisor may never reach: write it now that every module is loaded.
      flushCompileCache();
      markServing(config.dataDir, app.onClose.bind(app));
      if (config.schedulerEnabled) startScheduler(app);
      if ((await app.users.list()).length === 0) {
        app.log.warn(
          `no users yet: create one with \`tidings --data ${config.dataDir} user add <name>\`, then subscribe with \`tidings feed add <name> <url>\``,
        );
      }
      await new Promise<void>((resolve) => {
        let closing = false;
        const stop = (signal: string) => {
          if (closing) return;
          closing = true;
          app.log.info({ signal }, 'shutting down');
          // A handle left open by a library must not keep a stopped server alive.
          setTimeout(() => process.exit(process.exitCode ?? 0), 10_000).unref();
          app.close().then(resolve, (err: unknown) => {
            app.log.error({ err }, 'error while shutting down');
            process.exitCode = 1;
            resolve();
          });
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
    });
}
