// `tidings backup`, `tidings restore`, `tidings prune`: the operator's maintenance commands.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import { restoreBackup, BackupFileError } from '../../store/open-store.ts';
import { pruneReadArticles } from '../../feeds/retention.ts';
import { runningServerPid } from '../pid-file.ts';

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

export function registerMaintenanceCommands(program: Command, ctx: CliContext): void {
  program
    .command('backup <file>')
    .description('write a consistent copy of the database to <file>; safe while the server runs')
    .option('--force', 'overwrite <file> if it exists')
    .action(async (file: string, o: { force?: boolean }) => {
      const target = resolve(file);
      if (existsSync(target) && !o.force)
        throw new CliError(`${target} already exists (use --force to overwrite it)`, 2);
      const app = await ctx.app();
      try {
        await app.store.backup(target);
      } catch (e) {
        throw new CliError(`cannot write the backup to ${target}: ${(e as Error).message}`, 1);
      }
      ctx.out(`backed up ${app.config.dataDir} to ${target} (${mib(statSync(target).size)})`);
    });

  program
    .command('restore <file>')
    .description(
      'replace the database with a backup made by `tidings backup`; stop the server first. The current database is kept beside it',
    )
    .action(async (file: string) => {
      const source = resolve(file);
      if (!existsSync(source)) throw new CliError(`no such file: ${source}`, 2);
      const config = ctx.config();
      const serving = runningServerPid(config.dataDir);
      // The server keeps the database open and caches parts of it: swapping the file under it
      // would mix two databases. Backups, on the other hand, are fine while it runs.
      if (serving !== null)
        throw new CliError(
          `the server (pid ${serving}) is running on ${config.dataDir}: stop it first, restore, then start it again`,
          1,
        );
      try {
        const { keptAs } = await restoreBackup(source, { databaseUrl: config.databaseUrl, dataDir: config.dataDir });
        // Opening it applies the migrations a backup from an older version lacks.
        const app = await ctx.app();
        ctx.out(
          `restored ${source} into ${app.config.dataDir}` +
            (keptAs ? `; the previous database is kept as ${keptAs}` : ''),
        );
      } catch (e) {
        if (e instanceof BackupFileError) throw new CliError(`cannot restore: ${e.message}`, 2);
        throw e;
      }
    });

  program
    .command('prune')
    .description(
      'delete read articles older than --days (default: retentionDays) unless starred, saved or tagged; the server does this hourly when retentionDays is set',
    )
    .option('--days <n>', 'age in days (by the time the article was first stored)')
    .action(async (o: { days?: string }) => {
      const app = await ctx.app();
      const days = o.days === undefined ? app.config.retentionDays : Number(o.days);
      if (!Number.isInteger(days) || days < 1) {
        throw new CliError(
          o.days === undefined
            ? 'say how old: --days <n>, or set retentionDays (TIDINGS_RETENTION_DAYS)'
            : `--days must be a whole number of at least 1, got "${o.days}"`,
          2,
        );
      }
      const r = await pruneReadArticles(app, days);
      ctx.out(`deleted ${r.deleted} read article(s) older than ${days} days`);
    });
}
