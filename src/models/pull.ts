// `tidings model pull`: one GGUF file into the store, so that a partial or corrupt file is never
// used. In order: the reference is resolved (catalogue name, hf:owner/repo/file.gguf, or an
// http(s) URL); the store's lock is taken (one download per machine); bytes go to
// <file>.part, resumed with an HTTP Range request (If-Range: the ETag of the first attempt, so a
// file replaced on the server starts over instead of being spliced); free disk space is checked
// once the size is known and before the first byte is written; the GGUF header is checked on the
// first bytes; the SHA-256 is computed while writing and compared with the catalogue's, the one
// given with --sha256, or the one the source publishes (Hugging Face sends each LFS file's
// SHA-256 as X-Linked-ETag), and a mismatch deletes the file; only then is the file synced and
// renamed into place and recorded in models.json.
//
// undici, as the feed fetcher uses, with the same SSRF guard (private addresses refused unless
// TIDINGS_ALLOW_PRIVATE_NETWORKS): an admin types URLs here too. Redirects are followed by hand
// (Hugging Face answers /resolve/ with a redirect to its CDN) and each hop is checked. There is
// no overall time limit (a 5 GB file takes as long as it takes); a stalled body times out.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, rmSync } from 'node:fs';
import { open, rm, stat, statfs, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Agent, Dispatcher } from 'undici';
import type { Config } from '../config/config.ts';
import { checkHostLiteral, guardedLookup } from '../net/address-guard.ts';
import { catalogueModel, CATALOGUE } from './catalogue.ts';
import { checkGgufFile, ggufHeaderProblem, GGUF_HEADER_BYTES } from './gguf.ts';
import {
  acquireLock,
  CANCEL_FILE,
  findStored,
  ModelError,
  modelsDir,
  readManifest,
  recordModel,
  storeFileName,
  writeJsonAtomic,
  writeProgress,
  type DownloadProgress,
  type StoredModel,
} from './store.ts';

export type PullConfig = Pick<
  Config,
  | 'modelsDir'
  | 'modelsHubUrl'
  | 'allowPrivateNetworks'
  | 'connectTimeoutMs'
  | 'fetchTimeoutMs'
  | 'maxRedirects'
  | 'userAgent'
>;

export interface ResolvedRef {
  /** Name in the store: the catalogue name, else the file's base name. */
  name: string;
  file: string;
  url: string;
  ref: string;
  /** Expected SHA-256 known before asking the source (catalogue). */
  sha256?: string;
  /** Approximate size from the catalogue, for the message before the server answers. */
  approxBytes?: number;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** What `tidings model pull <ref>` means, or a ModelError saying how to write it. */
export function resolveRef(raw: string, config: Pick<Config, 'modelsHubUrl'>): ResolvedRef {
  const ref = raw.trim();
  if (!ref)
    throw new ModelError(
      'bad_input',
      'name the model to pull: a catalogue name (see tidings model list), hf:owner/repo/file.gguf or an https:// URL of a .gguf file',
    );
  const hub = config.modelsHubUrl.trim().replace(/\/+$/, '');
  const c = catalogueModel(ref);
  if (c)
    return {
      name: c.name,
      file: storeFileName(c.file),
      url: `${hub}/${c.repo}/resolve/main/${encodeURIComponent(c.file)}`,
      ref: c.name,
      sha256: c.sha256,
      approxBytes: c.sizeBytes,
    };
  if (/^hf:/i.test(ref)) {
    const parts = ref.slice(3).replace(/^\/+/, '').split('/');
    if (parts.length < 3 || parts.some((p) => !p || p === '.' || p === '..'))
      throw new ModelError(
        'bad_input',
        `"${ref}" is not an hf: reference: write hf:<owner>/<repo>/<file>.gguf, e.g. hf:bartowski/Qwen_Qwen3-1.7B-GGUF/Qwen_Qwen3-1.7B-Q8_0.gguf`,
      );
    const [owner, repo, ...path] = parts as [string, string, ...string[]];
    const file = path[path.length - 1]!;
    if (!/\.gguf$/i.test(file))
      throw new ModelError(
        'bad_input',
        `"${ref}" does not name a .gguf file (the last part must be the file, like …/model-Q4_K_M.gguf)`,
      );
    return {
      name: file.replace(/\.gguf$/i, ''),
      file: storeFileName(file),
      url: `${hub}/${owner}/${repo}/resolve/main/${path.map(encodeURIComponent).join('/')}`,
      ref,
    };
  }
  if (/^https?:\/\//i.test(ref)) {
    let u: URL;
    try {
      u = new URL(ref);
    } catch {
      throw new ModelError('bad_input', `"${ref}" is not a valid URL`);
    }
    if (u.username || u.password)
      throw new ModelError(
        'bad_input',
        'refusing a URL with a user name or password in it: it would be stored in models.json in clear text',
      );
    const file = decodeURIComponent(u.pathname.split('/').pop() ?? '');
    if (!/\.gguf$/i.test(file))
      throw new ModelError(
        'bad_input',
        `"${ref}" does not end in a .gguf file name: give the URL of the GGUF file itself`,
      );
    if (/(^|\.)huggingface\.co$/i.test(u.hostname) && u.pathname.includes('/blob/'))
      throw new ModelError(
        'bad_input',
        `that is the web page of the file; download it from ${u.origin}${u.pathname.replace('/blob/', '/resolve/')}`,
      );
    u.hash = '';
    return { name: file.replace(/\.gguf$/i, ''), file: storeFileName(file), url: u.href, ref: u.href };
  }
  if (/\.gguf$/i.test(ref) || ref.includes('/'))
    throw new ModelError(
      'bad_input',
      `"${ref}" looks like a file on this machine: nothing to download, run tidings model use ${ref}`,
    );
  throw new ModelError(
    'bad_input',
    `no model "${ref}" in the catalogue (${CATALOGUE.map((m) => m.name).join(', ')}); or give hf:owner/repo/file.gguf or an https:// URL of a .gguf file`,
  );
}

export interface PullProgress {
  receivedBytes: number;
  totalBytes: number | null;
  /** Bytes already on disk from an earlier attempt when this one started. */
  resumedFrom: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
}

export interface PullOptions {
  /** Expected SHA-256 (hex), e.g. from `--sha256`; wins over what the source publishes. */
  sha256?: string;
  signal?: AbortSignal;
  onProgress?: (p: PullProgress) => void;
  /** Messages for the user (resuming, which hash was checked). */
  onNote?: (text: string) => void;
  /** Free bytes where the store is; tests inject a small number. */
  freeBytes?: (dir: string) => Promise<number>;
  /** Make the pulled model the selected one (default true: the last pulled is used). */
  select?: boolean;
  /** Called once the download holds the store's lock, before the first request. */
  onStarted?: () => void;
}

/** Free space kept beyond the file itself: a full disk breaks the database next to it. */
const DISK_RESERVE = 256 * 1024 * 1024;

async function defaultFreeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

interface PartMeta {
  url: string;
  etag: string | null;
  totalBytes: number | null;
  publishedSha256: string | null;
}

const header = (h: Dispatcher.ResponseData['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

let client: Promise<{ agent: Agent; allowPrivate: boolean; request: typeof import('undici').request }> | undefined;

async function undici(cfg: PullConfig) {
  const c = await client;
  if (c && c.allowPrivate === cfg.allowPrivateNetworks) return c;
  client = import('undici').then(({ Agent, request }) => ({
    request,
    allowPrivate: cfg.allowPrivateNetworks,
    agent: new Agent({
      connect: { timeout: cfg.connectTimeoutMs, lookup: guardedLookup(cfg.allowPrivateNetworks) },
      keepAliveTimeout: 10_000,
    }),
  }));
  return client;
}

function networkError(e: unknown, url: URL): ModelError {
  if (e instanceof ModelError) return e;
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err.code ?? err.cause?.code;
  const where = url.host;
  // The user named a model, not a URL: the address guard's "(check the URL)" does not help them.
  const msg =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA'
      ? `cannot resolve host name ${url.hostname}: is this machine online? (TIDINGS_MODELS_HUB_URL names a mirror of Hugging Face; \`tidings model use <file.gguf>\` takes a file you already have)`
      : code === 'ECONNREFUSED'
        ? `connection refused by ${where}`
        : code === 'UND_ERR_CONNECT_TIMEOUT'
          ? `could not connect to ${where}`
          : code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
            ? `${where} stopped answering`
            : `${err.message ?? String(e)}`;
  return new ModelError('network', msg, { cause: e });
}

/** GET with Range, following redirects by hand; collects Hugging Face's published hash and size on the way. */
async function openDownload(
  cfg: PullConfig,
  start: string,
  offset: number,
  etag: string | null,
  signal: AbortSignal | undefined,
): Promise<{ res: Dispatcher.ResponseData; url: URL; publishedSha256: string | null; linkedSize: number | null }> {
  const { agent, request } = await undici(cfg);
  let url = new URL(start);
  let publishedSha256: string | null = null;
  let linkedSize: number | null = null;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ModelError('network', `redirected to a ${url.protocol} URL, which cannot be downloaded`);
    try {
      checkHostLiteral(url.hostname, cfg.allowPrivateNetworks);
    } catch (e) {
      throw new ModelError('network', (e as Error).message);
    }
    const headers: Record<string, string> = {
      'user-agent': cfg.userAgent,
      accept: '*/*',
      'accept-encoding': 'identity',
    };
    if (offset > 0) {
      headers.range = `bytes=${offset}-`;
      if (etag && !etag.startsWith('W/')) headers['if-range'] = etag;
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        dispatcher: agent,
        method: 'GET',
        headers,
        signal,
        headersTimeout: cfg.fetchTimeoutMs,
        bodyTimeout: Math.max(cfg.fetchTimeoutMs, 60_000),
      });
    } catch (e) {
      if (signal?.aborted) throw new ModelError('aborted', 'download stopped; run the same pull again to resume');
      throw networkError(e, url);
    }
    const linked = header(res.headers, 'x-linked-etag')?.replace(/^W\//, '').replace(/"/g, '').toLowerCase();
    if (linked && HEX64.test(linked)) publishedSha256 = linked;
    const size = Number(header(res.headers, 'x-linked-size'));
    if (Number.isSafeInteger(size) && size > 0) linkedSize = size;
    if ([301, 302, 303, 307, 308].includes(res.statusCode)) {
      res.body.on('error', () => undefined);
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const location = header(res.headers, 'location');
      if (!location)
        throw new ModelError('http', `HTTP ${res.statusCode} redirect without a Location header from ${url.host}`);
      if (hop >= cfg.maxRedirects) throw new ModelError('http', `too many redirects (more than ${cfg.maxRedirects})`);
      url = new URL(location, url);
      continue;
    }
    return { res, url, publishedSha256, linkedSize };
  }
}

function httpProblem(status: number, url: URL): ModelError {
  const what =
    status === 404
      ? 'not found: check the name (repository and file names are case-sensitive)'
      : status === 401 || status === 403
        ? 'the server wants a login (a gated model: accept its licence on Hugging Face and download it yourself, then run tidings model use <file>)'
        : status === 429
          ? 'rate limited: try again later'
          : `the server answered ${status}`;
  return new ModelError('http', `HTTP ${status} from ${url.host}: ${what}`);
}

async function hashFile(path: string, into: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) into.update(chunk as Buffer);
}

const GiB = 1024 ** 3;
export function formatBytes(n: number): string {
  if (n >= GiB) return `${(n / GiB).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

/**
 * Downloads `raw` into the store and records it (selected, unless opts.select is false).
 * Throws a ModelError; an interrupted download leaves its .part to be resumed by the next call.
 */
export async function pullModel(raw: string, config: PullConfig, opts: PullOptions = {}): Promise<StoredModel> {
  const target = resolveRef(raw, config);
  const given = opts.sha256?.trim().toLowerCase();
  if (given !== undefined && !HEX64.test(given))
    throw new ModelError('bad_input', `--sha256 must be 64 hexadecimal digits, got "${opts.sha256}"`);
  const dir = modelsDir(config);
  const already = findStored(dir, target.name);
  if (already && already.url === target.url && existsSync(join(dir, already.file)))
    throw new ModelError(
      'bad_input',
      `${already.name} is already in ${dir} (tidings model use ${already.name} to pick it; tidings model remove ${already.name} to download it again)`,
    );
  const owner = Object.values(readManifest(dir).models).find((m) => m.file === target.file && m.name !== target.name);
  if (owner)
    throw new ModelError(
      'bad_input',
      `the store already has a file ${target.file} (model ${owner.name}): remove that one first`,
    );
  if (already && already.url !== target.url)
    throw new ModelError(
      'bad_input',
      `a model named ${already.name} from ${already.ref} is already in the store: remove it first`,
    );

  const release = acquireLock(dir, target.name, target.file);
  // A cancel meant for an earlier download must not stop this one.
  rmSync(join(dir, CANCEL_FILE), { force: true });
  const startedAt = new Date().toISOString();
  const progress: DownloadProgress = {
    name: target.name,
    ref: target.ref,
    state: 'downloading',
    receivedBytes: 0,
    totalBytes: target.approxBytes ?? null,
    bytesPerSecond: 0,
    etaSeconds: null,
    startedAt,
    updatedAt: startedAt,
    pid: process.pid,
  };
  writeProgress(dir, progress);
  try {
    opts.onStarted?.();
    const model = await download(target, dir, config, opts, given, progress);
    writeProgress(dir, { ...progress, state: 'done', updatedAt: new Date().toISOString() });
    return model;
  } catch (e) {
    const err = e instanceof ModelError ? e : new ModelError('network', (e as Error).message, { cause: e });
    writeProgress(dir, { ...progress, state: 'failed', error: err.message, updatedAt: new Date().toISOString() });
    throw err;
  } finally {
    release();
  }
}

async function download(
  target: ResolvedRef,
  dir: string,
  config: PullConfig,
  opts: PullOptions,
  given: string | undefined,
  progress: DownloadProgress,
): Promise<StoredModel> {
  const finalPath = join(dir, target.file);
  const partPath = `${finalPath}.part`;
  const metaPath = `${partPath}.json`;
  let meta: PartMeta | null = null;
  try {
    meta = JSON.parse(await readFile(metaPath, 'utf8')) as PartMeta;
  } catch {
    meta = null;
  }
  let offset = 0;
  if (meta && meta.url === target.url && existsSync(partPath)) offset = (await stat(partPath)).size;
  else await Promise.all([rm(partPath, { force: true }), rm(metaPath, { force: true })]);
  if (offset > 0) opts.onNote?.(`resuming ${target.name} at ${formatBytes(offset)}`);

  const { res, url, publishedSha256, linkedSize } = await openDownload(
    config,
    target.url,
    offset,
    meta?.etag ?? null,
    opts.signal,
  );
  const body = res.body;
  body.on('error', () => undefined);
  const drop = () => body.destroy();
  let total: number | null = null;
  let resumed = offset;
  /** The part already holds every byte: nothing to read, only the checks and the rename. */
  let whole = false;
  if (res.statusCode === 416 && offset > 0) {
    // The part is already whole (interrupted after the last byte, before the rename).
    drop();
    whole = true;
    total = meta?.totalBytes ?? linkedSize;
    if (total !== offset) {
      await Promise.all([rm(partPath, { force: true }), rm(metaPath, { force: true })]);
      throw new ModelError(
        'network',
        'the server refused to resume the download; the partial file was deleted, run the pull again to start over',
      );
    }
  } else if (res.statusCode === 206) {
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header(res.headers, 'content-range') ?? '');
    if (!m || Number(m[1]) !== offset) {
      drop();
      await Promise.all([rm(partPath, { force: true }), rm(metaPath, { force: true })]);
      throw new ModelError(
        'network',
        `the server resumed at the wrong place (${header(res.headers, 'content-range') ?? 'no Content-Range'}); the partial file was deleted, run the pull again`,
      );
    }
    total = m[3] === '*' ? null : Number(m[3]);
  } else if (res.statusCode >= 200 && res.statusCode < 300) {
    if (offset > 0)
      opts.onNote?.('the server sent the whole file again (it changed, or does not resume): starting over');
    offset = 0;
    resumed = 0;
    const len = Number(header(res.headers, 'content-length'));
    total = Number.isSafeInteger(len) && len >= 0 ? len : linkedSize;
  } else {
    drop();
    throw httpProblem(res.statusCode, url);
  }
  if (total !== null && total < GGUF_HEADER_BYTES) {
    drop();
    throw new ModelError('not_gguf', `${target.ref} is not a GGUF model file: it is only ${total} bytes long`);
  }

  // Free space, before the first byte is written.
  // Without a size from the server (chunked), the catalogue's approximate size still guards.
  const need = total === null ? (target.approxBytes ?? 0) - offset : total - offset;
  if (need > 0) {
    const free = await (opts.freeBytes ?? defaultFreeBytes)(dir);
    if (need + DISK_RESERVE > free) {
      drop();
      throw new ModelError(
        'disk',
        `not enough disk space in ${dir}: ${target.name} needs ${formatBytes(need)} more (plus ${formatBytes(DISK_RESERVE)} kept free), ${formatBytes(free)} is free. Free some space, or set TIDINGS_MODELS_DIR to a bigger disk`,
      );
    }
  }

  // The hash published with the first attempt still holds for a part that was resumed (206).
  const published = publishedSha256 ?? (resumed > 0 ? (meta?.publishedSha256 ?? null) : null);
  const expected = given ?? target.sha256 ?? published ?? undefined;
  const verifiedBy: StoredModel['verifiedBy'] = given
    ? 'given'
    : target.sha256
      ? 'catalogue'
      : published
        ? 'published'
        : 'none';
  const etag = header(res.headers, 'etag') ?? null;
  writeJsonAtomic(metaPath, {
    url: target.url,
    etag: etag ?? meta?.etag ?? null,
    totalBytes: total,
    publishedSha256: published,
  } satisfies PartMeta);

  const hash = createHash('sha256');
  if (offset > 0) await hashFile(partPath, hash);
  const fh = await open(partPath, offset > 0 ? 'a' : 'w');
  let received = offset;
  const t0 = performance.now();
  let lastReport = 0;
  let head: Buffer | null = offset >= GGUF_HEADER_BYTES ? null : Buffer.alloc(0);
  if (offset > 0 && offset < GGUF_HEADER_BYTES) head = await readFile(partPath);
  const cancelPath = join(dir, CANCEL_FILE);
  const report = (force: boolean) => {
    const now = performance.now();
    if (!force && now - lastReport < 250) return;
    lastReport = now;
    if (existsSync(cancelPath)) {
      rmSync(cancelPath, { force: true });
      body.destroy(
        new ModelError('aborted', `download cancelled at ${formatBytes(received)}; pull it again to resume`),
      );
    }
    const secs = (now - t0) / 1000;
    const rate = secs > 0 ? (received - resumed) / secs : 0;
    const p: PullProgress = {
      receivedBytes: received,
      totalBytes: total,
      resumedFrom: resumed,
      bytesPerSecond: rate,
      etaSeconds: total !== null && rate > 0 ? (total - received) / rate : null,
    };
    opts.onProgress?.(p);
    // Four small writes a second, so the admin page's polls see it move.
    Object.assign(progress, {
      receivedBytes: received,
      totalBytes: total,
      bytesPerSecond: rate,
      etaSeconds: p.etaSeconds,
      updatedAt: new Date().toISOString(),
    });
    writeProgress(dir, progress);
  };
  const onAbort = () => body.destroy(new ModelError('aborted', 'download stopped; run the same pull again to resume'));
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    report(true);
    for await (const chunk of whole ? [] : (body as AsyncIterable<Buffer>)) {
      if (head) {
        head = Buffer.concat([head, chunk]);
        if (head.length >= GGUF_HEADER_BYTES) {
          const problem = ggufHeaderProblem(head.subarray(0, GGUF_HEADER_BYTES));
          if (problem) {
            drop();
            await fh.close();
            await Promise.all([rm(partPath, { force: true }), rm(metaPath, { force: true })]);
            throw new ModelError('not_gguf', `${target.ref} is not a GGUF model file: ${problem}; nothing was kept`);
          }
          head = null;
        }
      }
      await fh.write(chunk);
      hash.update(chunk);
      received += chunk.length;
      if (total !== null && received > total) {
        drop();
        throw new ModelError('network', `the server sent more than the ${total} bytes it announced`);
      }
      report(false);
    }
    report(true);
  } catch (e) {
    await fh.close().catch(() => undefined);
    if (e instanceof ModelError) {
      if (e.code !== 'not_gguf') report(true);
      throw e;
    }
    if (opts.signal?.aborted)
      throw new ModelError(
        'aborted',
        `download stopped at ${formatBytes(received)}; run the same pull again to resume`,
      );
    throw new ModelError(
      'network',
      `download interrupted at ${formatBytes(received)}${total !== null ? ` of ${formatBytes(total)}` : ''} (${networkError(e, url).message}); run the same pull again to resume`,
      { cause: e },
    );
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
  await fh.sync();
  await fh.close();

  if (total !== null && received !== total)
    throw new ModelError(
      'network',
      `download ended at ${formatBytes(received)} of ${formatBytes(total)}; run the same pull again to resume`,
    );
  try {
    await checkGgufFile(partPath, target.ref);
  } catch (e) {
    await Promise.all([rm(partPath, { force: true }), rm(metaPath, { force: true })]);
    throw e;
  }
  const sha256 = hash.digest('hex');
  if (expected && sha256 !== expected) {
    await Promise.all([rm(partPath, { force: true }), rm(metaPath, { force: true })]);
    const against =
      verifiedBy === 'given'
        ? 'the --sha256 given'
        : verifiedBy === 'catalogue'
          ? "the catalogue's"
          : 'the one the source publishes';
    throw new ModelError(
      'hash',
      `the downloaded ${target.name} is corrupt or not the published file: its SHA-256 is ${sha256}, ${against} is ${expected}. The file was deleted; run the pull again`,
    );
  }
  if (verifiedBy === 'none')
    opts.onNote?.(
      `the source publishes no SHA-256 for ${target.name}: checked its size and GGUF header only (pass --sha256 to check a hash)`,
    );
  else
    opts.onNote?.(
      `SHA-256 checked against ${verifiedBy === 'given' ? '--sha256' : verifiedBy === 'catalogue' ? 'the catalogue' : "the source's published hash"}`,
    );
  await rename(partPath, finalPath);
  await rm(metaPath, { force: true });
  const model: StoredModel = {
    name: target.name,
    file: target.file,
    ref: target.ref,
    url: target.url,
    sizeBytes: received,
    sha256,
    verifiedBy,
    pulledAt: new Date().toISOString(),
  };
  recordModel(dir, model, opts.select !== false);
  return model;
}
