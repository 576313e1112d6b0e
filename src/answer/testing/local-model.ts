// For tests of the local engine: a tiny model file written in a temp folder, and whether the
// runtime's native binary loads on this machine. Where it cannot (an unsupported platform), tests
// skip with the reason; under CI (CI=true) they run anyway and fail, so CI never skips them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyGguf, type TinyGgufOptions } from './tiny-gguf.ts';
import { loadNativeRuntime } from '../local/runtime.ts';

export function tinyModelFile(opts: TinyGgufOptions = {}, name = 'tiny.gguf'): string {
  return writeTinyGguf(join(mkdtempSync(join(tmpdir(), 'tidings-model-')), name), opts);
}

let probe: Promise<string | false> | undefined;

/** false when node-llama-cpp's binary loads here; else the skip message. */
export function nativeRuntimeSkip(): Promise<string | false> {
  probe ??= (async () => {
    try {
      // The runtime's own Llama, kept: disposing a Llama of its own would free the native backend
      // every later load in this process shares.
      await loadNativeRuntime();
      return false;
    } catch (e) {
      if (process.env.CI) return false;
      return `skipped: node-llama-cpp's prebuilt binary does not load on this machine (${(e as Error).message})`;
    }
  })();
  return probe;
}
