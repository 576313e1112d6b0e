// The per-machine model store: one folder (TIDINGS_MODELS_DIR, by default the user's cache
// folder) that every worker and every data folder of the user share, so a model of several GB is
// on disk once. It holds
//   <file>.gguf          complete, verified models (only the download moves them here)
//   <file>.gguf.part     a download in progress or interrupted, with <file>.gguf.part.json
//                        saying where it comes from (resumed from there)
//   models.json          which models are stored (name, file, source, size, hash) and which one
//                        `tidings model use` picked; a file missing from it is not used
//   download.lock        held by the one download allowed at a time on the machine
//   download.json        that download's progress (what the admin page polls, from any worker)
// models.json and download.json are replaced by rename, so a reader never sees half of one.
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, hostname, platform } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { CATALOGUE, type CatalogueModel } from './catalogue.ts';

/** A refusal or failure of a model command, in words a user can act on. */
export class ModelError extends Error {
  readonly code: 'bad_input' | 'not_found' | 'busy' | 'disk' | 'hash' | 'not_gguf' | 'network' | 'http' | 'aborted';
  constructor(code: ModelError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export interface StoredModel {
  name: string;
  /** File name inside the store. */
  file: string;
  /** The reference it was pulled from (catalogue name, hf:…, or URL) and the URL fetched. */
  ref: string;
  url: string;
  sizeBytes: number;
  sha256: string;
  /** What the SHA-256 was checked against; 'none' when the source published none (size and GGUF header checked). */
  verifiedBy: 'catalogue' | 'published' | 'given' | 'none';
  pulledAt: string;
}

export type Selection = { name: string } | { path: string };

interface Manifest {
  version: 1;
  selected: Selection | null;
  models: Record<string, StoredModel>;
}

/**
 * The store when the configuration names none: TIDINGS_MODELS_DIR of the process (also for a
 * configuration built from other settings, as the tests build theirs: see test/helpers.ts), else
 * the user's cache folder of the platform.
 */
export function defaultModelsDir(env: Record<string, string | undefined> = process.env): string {
  if (env.TIDINGS_MODELS_DIR?.trim()) return resolve(env.TIDINGS_MODELS_DIR.trim());
  if (platform() === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'tidings', 'models');
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Caches', 'tidings', 'models');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tidings', 'models');
}

export function modelsDir(config: Pick<Config, 'modelsDir'>): string {
  return resolve(config.modelsDir.trim() || defaultModelsDir());
}

const MANIFEST = 'models.json';
export const LOCK_FILE = 'download.lock';
export const PROGRESS_FILE = 'download.json';
/** Asks the running download, whichever process runs it, to stop (it looks four times a second). */
export const CANCEL_FILE = 'download.cancel';

function emptyManifest(): Manifest {
  return { version: 1, selected: null, models: {} };
}

export function readManifest(dir: string): Manifest {
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) return emptyManifest();
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    if (m && typeof m === 'object' && m.models && typeof m.models === 'object') return { ...emptyManifest(), ...m };
  } catch {
    /* falls through to the error below: guessing could forget which files are complete */
  }
  throw new ModelError(
    'bad_input',
    `the model store's list ${file} is damaged: fix or delete it (the .gguf files beside it stay)`,
  );
}

/** Replaces a JSON file whole (write a temporary file, then rename over the old one). */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
  renameSync(tmp, file);
}

export function writeManifest(dir: string, m: Manifest): void {
  mkdirSync(dir, { recursive: true });
  writeJsonAtomic(join(dir, MANIFEST), m);
}

/** A stored model whose file is there with the size recorded when it was verified. */
export function completeFile(dir: string, m: StoredModel): string | undefined {
  const path = join(dir, m.file);
  try {
    return statSync(path).size === m.sizeBytes ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The stored model a user means by `name` (its name, case-insensitively, or its file name). */
export function findStored(dir: string, name: string): StoredModel | undefined {
  const models = Object.values(readManifest(dir).models);
  const n = name.trim().toLowerCase();
  return (
    models.find((m) => m.name.toLowerCase() === n) ??
    models.find((m) => m.file.toLowerCase() === n || m.file.toLowerCase() === `${n}.gguf`)
  );
}

export interface ModelListEntry {
  name: string;
  inCatalogue: boolean;
  catalogue?: CatalogueModel;
  stored?: StoredModel;
  /** Complete on disk, usable. */
  present: boolean;
  selected: boolean;
}

/** The catalogue and what the store holds, with which one is selected. */
export function listModels(dir: string): { entries: ModelListEntry[]; selected: Selection | null } {
  const m = readManifest(dir);
  const sel = m.selected && 'name' in m.selected ? m.selected.name : undefined;
  const entries: ModelListEntry[] = CATALOGUE.map((c) => {
    const stored = m.models[c.name];
    return {
      name: c.name,
      inCatalogue: true,
      catalogue: c,
      stored,
      present: Boolean(stored && completeFile(dir, stored)),
      selected: sel === c.name,
    };
  });
  for (const s of Object.values(m.models)) {
    if (CATALOGUE.some((c) => c.name === s.name)) continue;
    entries.push({
      name: s.name,
      inCatalogue: false,
      stored: s,
      present: Boolean(completeFile(dir, s)),
      selected: sel === s.name,
    });
  }
  return { entries, selected: m.selected };
}

export function recordModel(dir: string, model: StoredModel, select: boolean): void {
  const m = readManifest(dir);
  m.models[model.name] = model;
  if (select) m.selected = { name: model.name };
  writeManifest(dir, m);
}

export function setSelection(dir: string, selection: Selection | null): void {
  const m = readManifest(dir);
  m.selected = selection;
  writeManifest(dir, m);
}

/** Deletes a stored model (and a partial download of it); clears the selection when it was selected. */
export function removeModel(dir: string, name: string): StoredModel {
  const found = findStored(dir, name);
  if (!found) throw new ModelError('not_found', `no model "${name}" in ${dir} (see tidings model list)`);
  const lock = readLock(dir);
  if (lock && lock.file === found.file)
    throw new ModelError(
      'busy',
      `${found.name} is being downloaded (process ${lock.pid}); wait for it or stop it first`,
    );
  const m = readManifest(dir);
  delete m.models[found.name];
  if (m.selected && 'name' in m.selected && m.selected.name === found.name) m.selected = null;
  writeManifest(dir, m);
  for (const f of [found.file, `${found.file}.part`, `${found.file}.part.json`]) {
    try {
      unlinkSync(join(dir, f));
    } catch {
      /* already gone */
    }
  }
  return found;
}

// ---- the one-download-at-a-time lock ----

export interface LockInfo {
  pid: number;
  host: string;
  name: string;
  file: string;
  startedAt: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's holder when a live process holds it (a lock left by a dead process on this host is stale). */
export function readLock(dir: string): LockInfo | undefined {
  let info: LockInfo;
  try {
    info = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
  if (info.host === hostname() && !alive(info.pid)) return undefined;
  return info;
}

/** Takes the store's download lock, or says who holds it. Returns the release function. */
export function acquireLock(dir: string, name: string, file: string): () => void {
  const path = join(dir, LOCK_FILE);
  const info: LockInfo = { pid: process.pid, host: hostname(), name, file, startedAt: new Date().toISOString() };
  // Written whole to a file of our own, then hard-linked to the lock's name: link() fails when the
  // name exists, so taking the lock is atomic and nobody ever reads a lock file half written.
  const mine = `${path}.${process.pid}.${Date.now()}`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(mine, JSON.stringify(info));
  } catch (e) {
    throw new ModelError(
      'disk',
      `cannot write to the model store ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): set TIDINGS_MODELS_DIR to a folder this user can write`,
      { cause: e },
    );
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(mine, path);
        return () => {
          try {
            const now = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
            if (now.pid === process.pid && now.startedAt === info.startedAt) unlinkSync(path);
          } catch {
            /* gone already */
          }
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = readLock(dir);
      if (holder)
        throw new ModelError(
          'busy',
          `another download is running on this machine (${holder.name}, process ${holder.pid} on ${holder.host}, since ${holder.startedAt}): one at a time; wait for it to finish`,
        );
      takeOverStaleLock(path);
    }
    throw new ModelError('busy', `could not take the download lock ${path}; try again`);
  } finally {
    rmSync(mine, { force: true });
  }
}

/** Moves a dead process's lock aside; puts it back if what moved was a lock someone just took. */
function takeOverStaleLock(path: string): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else moved it first
  }
  try {
    const moved = JSON.parse(readFileSync(aside, 'utf8')) as LockInfo;
    if (moved.host !== hostname() || alive(moved.pid)) {
      try {
        linkSync(aside, path);
      } catch {
        /* a third process holds it now; theirs stands */
      }
    }
  } catch {
    /* unreadable: it was stale */
  }
  rmSync(aside, { force: true });
}

// ---- progress, shared through the store so every worker (and the CLI) sees it ----

export interface DownloadProgress {
  name: string;
  ref: string;
  state: 'downloading' | 'done' | 'failed';
  receivedBytes: number;
  totalBytes: number | null;
  bytesPerSecond: number;
  etaSeconds: number | null;
  startedAt: string;
  updatedAt: string;
  pid: number;
  error?: string;
}

export function writeProgress(dir: string, p: DownloadProgress): void {
  try {
    writeJsonAtomic(join(dir, PROGRESS_FILE), p);
  } catch {
    /* progress is advisory; the download goes on */
  }
}

/** The last download's progress; one still marked downloading whose process is gone reads as failed. */
export function readProgress(dir: string): DownloadProgress | null {
  let p: DownloadProgress;
  try {
    p = JSON.parse(readFileSync(join(dir, PROGRESS_FILE), 'utf8')) as DownloadProgress;
  } catch {
    return null;
  }
  if (p.state === 'downloading' && !readLock(dir))
    return { ...p, state: 'failed', error: 'the download stopped (its process ended); pull again to resume' };
  return p;
}

/** Asks the download running on this machine to stop (its part stays, to be resumed). */
export function requestCancel(dir: string): LockInfo {
  const lock = readLock(dir);
  if (!lock) throw new ModelError('not_found', 'no download is running');
  writeFileSync(join(dir, CANCEL_FILE), JSON.stringify({ pid: lock.pid, at: new Date().toISOString() }));
  return lock;
}

/** A file name safe to keep in the store: a plain base name ending in .gguf. */
export function storeFileName(raw: string): string {
  const name = basename(raw);
  if (name !== raw || !/^[\w.+-]+\.gguf$/i.test(name) || name.startsWith('.'))
    throw new ModelError(
      'bad_input',
      `"${raw}" is not a usable GGUF file name (letters, digits, . _ - +, ending in .gguf)`,
    );
  return name;
}
