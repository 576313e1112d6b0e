// Shared test helpers: temp data folders, the CLI as a real child process, the shared corpus.
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
export const SHARED = resolve(ROOT, '../shared');
export const hasShared = existsSync(join(SHARED, 'corpus'));
export const SKIP_NO_SHARED = hasShared ? false : 'skipped: ../shared (corpus) is not present beside the checkout';

export function tempDataDir(prefix = 'tidings-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function runCli(args: string[], env: Record<string, string> = {}, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/tidings.js'), ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', rej);
    p.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
    p.stdin.end(input ?? '');
  });
}

/** Deterministic PRNG (mulberry32): the same sequence for the same seed, for generated test and benchmark data. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
