// `tidings model pull|list|use|remove`: the per-machine model store (src/models). No database:
// models are shared by every data folder of the user, so these commands only read the config.
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import {
  formatBytes,
  listModels,
  ModelError,
  modelsDir,
  pullModel,
  removeModel,
  requestCancel,
  selectedModelFile,
  SUGGESTED_MODEL,
  useModel,
  modelRow,
  modelsOverview,
  type ModelListEntry,
  type PullProgress,
} from '../../models/index.ts';

function cliError(e: unknown): unknown {
  if (e instanceof ModelError) return new CliError(e.message, e.code === 'bad_input' ? 2 : 1);
  return e;
}

function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** "512.0 MiB of 2.02 GiB (25%), 12.3 MiB/s, 2m 05s left" */
export function progressLine(p: PullProgress): string {
  const parts = [
    p.totalBytes
      ? `${formatBytes(p.receivedBytes)} of ${formatBytes(p.totalBytes)} (${Math.floor((p.receivedBytes / p.totalBytes) * 100)}%)`
      : formatBytes(p.receivedBytes),
    `${formatBytes(p.bytesPerSecond)}/s`,
  ];
  if (p.etaSeconds !== null) parts.push(`${duration(p.etaSeconds)} left`);
  return parts.join(', ');
}

export function registerModelCommands(program: Command, ctx: CliContext): void {
  const model = program
    .command('model')
    .description('models for answers written on this machine: download (pull), list, pick (use), remove');
  model
    .command('pull <name>')
    .description(
      'download a model into the per-machine store (TIDINGS_MODELS_DIR) and use it: a catalogue name (tidings model list), hf:owner/repo/file.gguf, or an https:// URL of a .gguf file. Resumes an interrupted download; checks free space, the GGUF header and the SHA-256 where the source publishes one',
    )
    .option('--sha256 <hex>', 'the SHA-256 the file must have (for a URL whose source publishes none)')
    .option('--no-use', 'only download; answers keep using the model picked now')
    .action(async (name: string, o: { sha256?: string; use: boolean }) => {
      const config = ctx.config();
      const tty = process.stderr.isTTY === true;
      let lastLine = 0;
      const started = performance.now();
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const m = await pullModel(name, config, {
          sha256: o.sha256,
          select: o.use,
          signal: stop.signal,
          onNote: (t) => process.stderr.write(`${tty ? '\n' : ''}tidings: ${t}\n`),
          onProgress: (p) => {
            const now = performance.now();
            const done = p.totalBytes !== null && p.receivedBytes >= p.totalBytes;
            if (tty) process.stderr.write(`\r\x1b[2Kpulling ${name}: ${progressLine(p)}`);
            else if (done || lastLine === 0 || now - lastLine >= 5000) {
              lastLine = now;
              process.stderr.write(`pulling ${name}: ${progressLine(p)}\n`);
            }
          },
        });
        if (tty) process.stderr.write('\n');
        const secs = (performance.now() - started) / 1000;
        ctx.out(
          `pulled ${m.name} (${formatBytes(m.sizeBytes)}, sha256 ${m.sha256}) in ${duration(secs)} into ${modelsDir(config)}` +
            (o.use
              ? `; answers use it from now on (restart a running server)`
              : `; tidings model use ${m.name} to pick it`),
        );
      } catch (e) {
        if (tty) process.stderr.write('\n');
        throw cliError(e);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
  model
    .command('list')
    .description('the catalogue and the models on this machine; * marks the one answers use')
    .option('--json', 'JSON output')
    .action((o: { json?: boolean }) => {
      const config = ctx.config();
      const dir = modelsDir(config);
      let entries: ModelListEntry[];
      try {
        entries = listModels(dir).entries;
      } catch (e) {
        throw cliError(e);
      }
      const inUse = selectedModelFile(config);
      if (o.json) {
        ctx.out(JSON.stringify(modelsOverview(config, inUse)));
        return;
      }
      const rows = entries.map((e) => {
        const r = modelRow(e);
        const gb = (n: unknown) => (typeof n === 'number' ? `${(n / 1e9).toFixed(1)} GB` : '');
        return [
          `${e.selected ? '*' : ' '} ${e.name}`,
          e.present ? 'present' : e.stored ? 'incomplete' : '-',
          gb(r.sizeBytes),
          r.memoryBytes ? `needs ${gb(r.memoryBytes)}` : '',
          r.contextTokens ? `${Math.round(Number(r.contextTokens) / 1024)}k ctx` : '',
          r.thinking ? 'thinking' : '',
          String(r.licence ?? r.source ?? ''),
          String(r.description ?? ''),
        ];
      });
      const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]!.length))) ?? [];
      ctx.out(
        [
          ...rows.map((r) =>
            r
              .map((c, i) => c.padEnd(widths[i]!))
              .join('  ')
              .trimEnd(),
          ),
          '',
          `store: ${dir}`,
          inUse
            ? `answers use: ${inUse.name} (${inUse.path})`
            : `answers use: no model (quotes from the articles); tidings model pull ${SUGGESTED_MODEL} for written answers`,
        ].join('\n'),
      );
    });
  model
    .command('use <name-or-path>')
    .description('pick the model answers use: a pulled model, or the path of a .gguf file you already have')
    .action(async (value: string) => {
      const config = ctx.config();
      try {
        const r = await useModel(config, value);
        ctx.out(
          `answers use ${'name' in r.selection ? r.selection.name : r.path} from now on (restart a running server)` +
            (r.overriddenBy ? `\nnote: TIDINGS_LLM_MODEL=${r.overriddenBy} is set and wins over this choice` : ''),
        );
      } catch (e) {
        throw cliError(e);
      }
    });
  model
    .command('cancel')
    .description(
      'stop the download running on this machine (started by another pull or in the admin settings); its part is resumed by the next pull',
    )
    .action(() => {
      try {
        const lock = requestCancel(modelsDir(ctx.config()));
        ctx.out(`asked the download of ${lock.name} (process ${lock.pid}) to stop`);
      } catch (e) {
        throw cliError(e);
      }
    });
  model
    .command('remove <name>')
    .description('delete a pulled model (and a partial download of it) from this machine')
    .action((name: string) => {
      const config = ctx.config();
      try {
        const m = removeModel(modelsDir(config), name);
        ctx.out(`removed ${m.name} (${formatBytes(m.sizeBytes)} freed)`);
      } catch (e) {
        throw cliError(e);
      }
    });
}
