// The models domain's entry module: where the local model file comes from (the per-machine model
// store filled by `tidings model pull`, or a path in TIDINGS_LLM_MODEL) and what the runtime that
// loaded it reports. The answer engines read the file from here; the web app and the CLI show the
// status from here. (Contract first: the model store and the runtime fill these in.)
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config/config.ts';

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

/** The GGUF file the local engine should load, or undefined when there is none. */
export function selectedModelFile(config: Config): ModelFile | undefined {
  const value = config.llmModel.trim();
  if (!value.toLowerCase().endsWith('.gguf')) return undefined;
  const path = resolve(value);
  if (!existsSync(path)) return undefined;
  return {
    path,
    name: path
      .split('/')
      .pop()!
      .replace(/\.gguf$/i, ''),
  };
}

let statusSource: (() => Promise<ModelRuntimeStatus>) | undefined;

/** The answer engine that runs the model registers how to ask it for its status. */
export function setModelRuntimeStatusSource(source: (() => Promise<ModelRuntimeStatus>) | undefined): void {
  statusSource = source;
}

export async function modelRuntimeStatus(): Promise<ModelRuntimeStatus> {
  return statusSource ? statusSource() : { engine: 'extractive', state: 'none' };
}
