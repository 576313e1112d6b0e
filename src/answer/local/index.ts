// The local model, as the App sees it: started once per process at start-up (`startLocalModel`),
// either loaded here (a single server process, `tidings ask`) or reached over the model host's
// socket (a worker of `serve --workers N`, whose supervisor loaded it once for the machine). A
// file that fails to load is logged with the reason, and the server answers with the next engine
// (OpenAI-compatible when configured, else extractive); /readyz and the admin panel show why.
import type { App } from '../../runtime/app.ts';
import type { Config } from '../../config/config.ts';
import { basename } from 'node:path';
import { perApp } from '../../runtime/per-app.ts';
import { SUGGESTED_MODEL, selectedModelFile, setModelRuntimeStatusSource } from '../../models/index.ts';
import type { LocalModel, LocalModelSettings, LocalRuntimeStatus } from './runtime.ts';
import { MODEL_HOST_CONTEXT_ENV, MODEL_HOST_ERROR_ENV, MODEL_HOST_SOCKET_ENV, ModelHostClient } from './host.ts';
import { startupLine } from './startup-line.ts';

export type { LocalModel, LocalRuntimeStatus, LocalModelSettings };

/** What the Ask page and `tidings ask` suggest when answers are quotes (the catalogue's suggestion). */
export const PULL_COMMAND = `npx tidings model pull ${SUGGESTED_MODEL}`;
/** The one line the Ask page and `tidings ask` show while answers are quotes (the API says nothing). */
export const QUOTES_NOTE_TEXT =
  'These answers are quotes from your articles, not written by a language model. For written answers, run';
export const QUOTES_NOTE = `${QUOTES_NOTE_TEXT}: ${PULL_COMMAND}`;

export interface LocalModelState {
  model?: LocalModel;
  status: LocalRuntimeStatus;
}

export const fallbackEngine = (config: Config): LocalRuntimeStatus['engine'] =>
  config.llmBaseUrl ? 'remote' : 'extractive';

export const localModelState: (app: App) => LocalModelState = perApp((app) => ({
  status: { engine: fallbackEngine(app.config), state: 'none' },
}));

export function localSettings(config: Config, file: string): LocalModelSettings {
  const layers = String(config.llmGpuLayers);
  return {
    file,
    threads: config.llmThreads,
    gpuLayers: layers === 'auto' || layers === 'max' ? layers : Number(layers),
    parallel: config.llmParallel,
    queue: config.llmQueue,
    contextTokens: config.llmContextTokens,
  };
}

/** Loads (or connects to) the selected model; never throws: a failure is logged and reported. */
export async function startLocalModel(app: App): Promise<LocalModelState> {
  const state = localModelState(app);
  const config = app.config;
  const log = app.log.child({ component: 'local-model' });
  const socket = process.env[MODEL_HOST_SOCKET_ENV];
  const hostError = process.env[MODEL_HOST_ERROR_ENV];
  if (socket) {
    const client = new ModelHostClient(socket, Number(process.env[MODEL_HOST_CONTEXT_ENV]) || config.llmContextTokens);
    state.model = client;
    state.status = await client.status().catch((e: Error) => ({
      engine: 'local' as const,
      state: 'failed' as const,
      error: e.message,
    }));
    if (state.status.file) client.label = basename(state.status.file);
  } else if (hostError) {
    state.status = { engine: fallbackEngine(config), state: 'failed', error: hostError };
  } else {
    const file = selectedModelFile(config);
    if (!file) {
      state.status = { engine: fallbackEngine(config), state: 'none' };
    } else {
      state.status = { engine: 'local', state: 'loading', file: file.path };
      try {
        const { LocalModelRuntime } = await import('./runtime.ts');
        const runtime = await LocalModelRuntime.load(localSettings(config, file.path));
        state.model = runtime;
        state.status = await runtime.status();
        log.info(startupLine(state.status), 'local model loaded');
        app.onClose(() => runtime.close());
      } catch (e) {
        const error = (e as Error).message;
        state.status = { engine: fallbackEngine(config), state: 'failed', file: file.path, error };
      }
    }
  }
  if (state.status.state === 'failed')
    log.error(
      { error: state.status.error, fallback: state.status.engine },
      `the local model could not be loaded; answering with the ${state.status.engine === 'remote' ? 'OpenAI-compatible server' : 'extractive engine'} instead`,
    );
  setModelRuntimeStatusSource(() => localModelStatus(app));
  return state;
}

/** The status now: asked of the model host when it holds the model. */
export async function localModelStatus(app: App): Promise<LocalRuntimeStatus> {
  const state = localModelState(app);
  if (!state.model || state.status.state !== 'ready') return state.status;
  try {
    return await state.model.status();
  } catch (e) {
    return { ...state.status, state: 'failed', error: (e as Error).message };
  }
}
