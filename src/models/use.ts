// `tidings model use <name|path>`: which model the answers use when TIDINGS_LLM_MODEL does not say.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { catalogueModel } from './catalogue.ts';
import { checkGgufFile } from './gguf.ts';
import { completeFile, findStored, ModelError, modelsDir, setSelection, type Selection } from './store.ts';

export interface UseResult {
  selection: Selection;
  path: string;
  /** Set when TIDINGS_LLM_MODEL names another model, which wins over the selection. */
  overriddenBy?: string;
}

export async function useModel(config: Pick<Config, 'modelsDir' | 'llmModel'>, raw: string): Promise<UseResult> {
  const value = raw.trim();
  if (!value)
    throw new ModelError('bad_input', 'name a pulled model (see tidings model list) or give the path of a .gguf file');
  const dir = modelsDir(config);
  let selection: Selection;
  let path: string;
  const stored = findStored(dir, value);
  if (stored) {
    const complete = completeFile(dir, stored);
    if (!complete)
      throw new ModelError(
        'not_found',
        `the file of ${stored.name} is missing or incomplete in ${dir}: run tidings model pull ${stored.ref} again`,
      );
    selection = { name: stored.name };
    path = complete;
  } else if (/\.gguf$/i.test(value) || value.includes('/') || value.includes('\\')) {
    path = resolve(value);
    if (!existsSync(path) || !statSync(path).isFile()) throw new ModelError('not_found', `no file ${path}`);
    await checkGgufFile(path);
    selection = { path };
  } else if (catalogueModel(value)) {
    throw new ModelError('not_found', `${value} is not downloaded yet: run tidings model pull ${value}`);
  } else {
    throw new ModelError(
      'not_found',
      `no model "${value}" in ${dir} (see tidings model list), and it is not a path to a .gguf file`,
    );
  }
  setSelection(dir, selection);
  const llm = config.llmModel.trim();
  const overrides =
    llm &&
    (llm.toLowerCase().endsWith('.gguf')
      ? resolve(llm) !== path
      : findStored(dir, llm) && findStored(dir, llm)?.name !== stored?.name);
  return { selection, path, ...(overrides ? { overriddenBy: llm } : {}) };
}
