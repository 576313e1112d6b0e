// What `tidings model list --json` prints and the admin settings show: the catalogue and the
// stored models in one list, the model answers use, and the last download's progress.
import type { Config } from '../config/config.ts';
import { listModels, modelsDir, readProgress, type DownloadProgress, type ModelListEntry } from './store.ts';

export interface ModelRow {
  name: string;
  catalogue: boolean;
  present: boolean;
  selected: boolean;
  sizeBytes: number | null;
  memoryBytes: number | null;
  contextTokens: number | null;
  licence: string | null;
  thinking: boolean | null;
  hardware: 'cpu' | 'gpu' | null;
  /** Where it comes (or came) from: hf:owner/repo/file for the catalogue, else the pulled reference. */
  source: string | null;
  sha256: string | null;
  verifiedBy: string | null;
  description: string | null;
}

export function modelRow(e: ModelListEntry): ModelRow {
  const c = e.catalogue;
  return {
    name: e.name,
    catalogue: e.inCatalogue,
    present: e.present,
    selected: e.selected,
    sizeBytes: e.stored?.sizeBytes ?? c?.sizeBytes ?? null,
    memoryBytes: c?.memoryBytes ?? null,
    contextTokens: c?.contextTokens ?? null,
    licence: c?.licence ?? null,
    thinking: c?.thinking ?? null,
    hardware: c?.hardware ?? null,
    source: c ? `hf:${c.repo}/${c.file}` : (e.stored?.ref ?? null),
    sha256: e.stored?.sha256 ?? c?.sha256 ?? null,
    verifiedBy: e.stored?.verifiedBy ?? null,
    description: c?.description ?? null,
  };
}

export interface ModelsOverview {
  modelsDir: string;
  /** The file answers use (see selectedModelFile), or null: extractive answers. */
  inUse: { path: string; name: string } | null;
  /** TIDINGS_LLM_MODEL when set: it wins over the selection. */
  llmModelSetting: string | null;
  models: ModelRow[];
  download: DownloadProgress | null;
}

export function modelsOverview(config: Config, inUse: { path: string; name: string } | undefined): ModelsOverview {
  const dir = modelsDir(config);
  return {
    modelsDir: dir,
    inUse: inUse ?? null,
    llmModelSetting: config.llmModel.trim() || null,
    models: listModels(dir).entries.map(modelRow),
    download: readProgress(dir),
  };
}
