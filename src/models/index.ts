// The models domain's entry module: where the local model file comes from (the per-machine model
// store filled by `tidings model pull`, or a path in TIDINGS_LLM_MODEL) and what the runtime that
// loaded it reports. The answer engines read the file from here; the web app and the CLI show the
// status from here. (Contract first: the model store and the runtime fill these in.)
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { completeFile, findStored, modelsDir, readManifest } from './store.ts';

export { CATALOGUE, catalogueModel, SUGGESTED_MODEL, type CatalogueModel } from './catalogue.ts';
export {
  listModels,
  ModelError,
  modelsDir,
  readLock,
  readProgress,
  removeModel,
  requestCancel,
  setSelection,
  type DownloadProgress,
  type ModelListEntry,
  type Selection,
  type StoredModel,
} from './store.ts';
export { formatBytes, pullModel, resolveRef, type PullConfig, type PullOptions, type PullProgress } from './pull.ts';
export { checkGgufFile } from './gguf.ts';
export { useModel, type UseResult } from './use.ts';
export { modelDownloads } from './downloads.ts';
export { modelRow, modelsOverview, type ModelRow, type ModelsOverview } from './overview.ts';

export interface ModelFile {
  /** Absolute path of a complete, verified GGUF file. */
  path: string;
  /** Short name shown to users: a catalogue name, or the file's base name. */
  name: string;
}

export interface ModelRuntimeStatus {
  engine: 'local' | 'remote' | 'extractive';
  state: 'none' | 'loading' | 'ready' | 'failed';
  file?: string;
  /** 'cpu', 'cuda', 'vulkan' or 'metal'. */
  backend?: string;
  gpuLayers?: number;
  threads?: number;
  contextTokens?: number;
  memoryBytes?: number;
  /** Why loading failed, in words a user can act on. */
  error?: string;
}

/**
 * The GGUF file the local engine should load, or undefined when there is none. In order:
 * TIDINGS_LLM_MODEL when it is a path to a .gguf file (the user's own file; undefined when it is
 * missing, rather than quietly another model); else TIDINGS_LLM_MODEL when it names a model
 * pulled into the store; else the store's selection (`tidings model use`, or the last pulled).
 * A store model counts only when its file is complete: a download in progress is a .part file
 * outside models.json, and a file whose size differs from the verified one is skipped.
 */
export function selectedModelFile(config: Config): ModelFile | undefined {
  const value = config.llmModel.trim();
  if (value.toLowerCase().endsWith('.gguf')) {
    const path = resolve(value);
    return existsSync(path) ? { path, name: baseName(path) } : undefined;
  }
  let dir: string;
  let manifest: ReturnType<typeof readManifest>;
  try {
    dir = modelsDir(config);
    manifest = readManifest(dir);
  } catch {
    return undefined;
  }
  const stored = (name: string): ModelFile | undefined => {
    const m = findStored(dir, name);
    const path = m && completeFile(dir, m);
    return path && m ? { path, name: m.name } : undefined;
  };
  if (value) {
    const named = stored(value);
    if (named) return named;
  }
  const sel = manifest.selected;
  if (!sel) return undefined;
  if ('name' in sel) return stored(sel.name);
  return existsSync(sel.path) ? { path: sel.path, name: baseName(sel.path) } : undefined;
}

const baseName = (path: string) =>
  path
    .split(/[\\/]/)
    .pop()!
    .replace(/\.gguf$/i, '');

let statusSource: (() => Promise<ModelRuntimeStatus>) | undefined;

/** The answer engine that runs the model registers how to ask it for its status. */
export function setModelRuntimeStatusSource(source: (() => Promise<ModelRuntimeStatus>) | undefined): void {
  statusSource = source;
}

export async function modelRuntimeStatus(): Promise<ModelRuntimeStatus> {
  return statusSource ? statusSource() : { engine: 'extractive', state: 'none' };
}
