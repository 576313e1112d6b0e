// The supervisor's side of the local model (`serve --workers N`): the model host process that
// holds the one copy for the machine, started before the workers and restarted if it dies. The
// supervisor imports this module only when a model file is selected, so a server without one
// loads no answer code in its supervisor.
import type { Config } from '../../config/config.ts';
import type { Logger } from '../../log/logger.ts';
import { selectedModelFile } from '../../models/index.ts';
import { fallbackEngine, localSettings } from './index.ts';
import { MODEL_HOST_CONTEXT_ENV, MODEL_HOST_ERROR_ENV, MODEL_HOST_SOCKET_ENV, startModelHost } from './host.ts';

export interface MachineModel {
  /** Environment for the workers: the host's socket, or why there is no model. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The supervisor's part (`serve --workers N`): loads the selected model once, in a model host
 * process, restarted if it dies. Never throws: a model that fails to load is logged, and the
 * workers are told why so they answer with the next engine and say so in /readyz.
 */
export async function startMachineModel(config: Config, log: Logger): Promise<MachineModel> {
  const file = selectedModelFile(config);
  if (!file) return { env: {}, stop: async () => {} };
  const settings = localSettings(config, file.path);
  const logOpts = { logLevel: config.logLevel, logFormat: config.logFormat };
  let host: Awaited<ReturnType<typeof startModelHost>>;
  try {
    host = await startModelHost(settings, logOpts);
  } catch (e) {
    const error = (e as Error).message;
    log.error(
      { error, fallback: fallbackEngine(config) },
      `the local model could not be loaded; the workers answer with the ${config.llmBaseUrl ? 'OpenAI-compatible server' : 'extractive engine'} instead`,
    );
    return { env: { [MODEL_HOST_ERROR_ENV]: error }, stop: async () => {} };
  }
  let stopping = false;
  let restarts = 0;
  const watch = (h: typeof host) => {
    h.child.once('exit', (code, signal) => {
      if (stopping) return;
      const delayMs = Math.min(500 * 2 ** restarts++, 30_000);
      log.error({ pid: h.child.pid, code, signal, restartInMs: delayMs }, 'the model host died; starting a new one');
      setTimeout(() => {
        if (stopping) return;
        startModelHost(settings, logOpts, h.socket).then(
          (next) => {
            host = next;
            watch(next);
          },
          (e: Error) => log.error({ error: e.message }, 'the model host could not be started again'),
        );
      }, delayMs).unref();
    });
  };
  watch(host);
  return {
    env: { [MODEL_HOST_SOCKET_ENV]: host.socket, [MODEL_HOST_CONTEXT_ENV]: String(host.status.contextTokens ?? '') },
    stop: async () => {
      stopping = true;
      await host.stop();
    },
  };
}
