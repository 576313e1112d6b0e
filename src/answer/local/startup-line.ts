// What the start-up log says about a loaded model: the backend, the layers on the GPU, the
// threads, the context and the memory it took, in fields a log search can read.
import type { LocalRuntimeStatus } from './runtime.ts';

export function startupLine(s: LocalRuntimeStatus): Record<string, unknown> {
  return {
    model: s.file,
    backend: s.backend,
    gpuLayers: s.gpuLayers,
    threads: s.threads,
    contextTokens: s.contextTokens,
    memoryMB: s.memoryBytes !== undefined ? Math.round(s.memoryBytes / 1_048_576) : undefined,
    loadMs: s.loadMs,
    pid: s.pid,
  };
}
