// One typed configuration for the whole system. Every option is declared once below with its
// environment variable, type, default and documentation; the README's configuration table is
// generated from this list (`node scripts/config-table.ts`), so they cannot drift.
//
// Precedence (last wins): defaults < config file (TIDINGS_CONFIG or <data>/config.json) <
// environment variables < command-line flags (`--data ./x`, `--set key=value`, and `tidings serve
// --port 9000 --host 0.0.0.0`).
import { readFileSync, existsSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { defaultDataDir } from './install.ts';

type Kind = 'string' | 'int' | 'number' | 'bool' | 'list' | 'json';

interface OptionSpec {
  env: string;
  kind: Kind;
  default: unknown;
  doc: string;
  /** Shown in the README table instead of the literal default, when that is computed at start. */
  defaultDoc?: string;
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

// Keys are the names used in the config file and in `--set key=value`.
export const OPTIONS = {
  dataDir: {
    env: 'TIDINGS_DATA',
    kind: 'string',
    default: '',
    defaultDoc: '`<checkout>/data` in a git checkout, else `$XDG_DATA_HOME/tidings` (`~/.local/share/tidings`)',
    doc: 'Data folder: the SQLite database (articles, accounts, async jobs and their results) and an optional config.json. Never derived from the current directory; commands say which folder they use when they create a database there.',
  },
  databaseUrl: {
    env: 'TIDINGS_DATABASE_URL',
    kind: 'string',
    default: '',
    doc: 'Database: empty for SQLite in the data folder (tidings.db), sqlite:<file> for another SQLite file, or postgres://user:password@host:port/db (also ?host=/socket/dir) for PostgreSQL 13 or newer.',
  },
  host: {
    env: 'TIDINGS_HOST',
    kind: 'string',
    default: '127.0.0.1',
    doc: 'Address the HTTP server binds to (use 0.0.0.0 to serve the LAN).',
  },
  port: {
    env: 'TIDINGS_PORT',
    kind: 'int',
    default: 8080,
    doc: 'HTTP port for both APIs (Google Reader API and chat completions).',
  },
  workers: {
    env: 'TIDINGS_WORKERS',
    kind: 'int',
    default: 0,
    defaultDoc: '`0` (one per CPU core)',
    doc: '`tidings serve` processes sharing the HTTP port (node:cluster): a supervisor forks them, restarts one that dies and drains them all on SIGTERM. 0: one per CPU core; 1: a single process, no supervisor. `serve --workers N` overrides it.',
  },
  workerBalancing: {
    env: 'TIDINGS_WORKER_BALANCING',
    kind: 'string',
    default: 'auto',
    doc: 'How `serve --workers N` spreads connections: reuse-port (each worker listens on the port itself with SO_REUSEPORT and the kernel spreads new connections; the supervisor stays out of the data path), round-robin (the supervisor accepts every connection and hands it to the workers in turn: costs it CPU per connection), or auto (the default): round-robin, which is exactly even and keeps connections waiting to be accepted when a worker dies; choose reuse-port for many short connections (a proxy without keep-alive).',
  },
  listenBacklog: {
    env: 'TIDINGS_LISTEN_BACKLOG',
    kind: 'int',
    default: 4096,
    doc: "Connections the kernel holds waiting to be accepted (listen's backlog; Linux caps it at net.core.somaxconn). Past it a new connection's SYN is dropped and the client retries after 1, 3, 7, 15 s: Node's default of 511 made a burst of 1,000 connections wait seconds (BENCHMARKS.md, Connections).",
  },
  acceptSockets: {
    env: 'TIDINGS_ACCEPT_SOCKETS',
    kind: 'int',
    default: 64,
    doc: 'Listening sockets per server process on Linux (SO_REUSEPORT, the kernel spreading new connections over them): Node accepts one connection per socket per event-loop turn, so under 1,000 busy connections a single socket accepted ~10 new ones a second (BENCHMARKS.md, Connections). 1: one socket. Not used by round-robin workers (the supervisor accepts).',
  },
  drainSeconds: {
    env: 'TIDINGS_DRAIN_SECONDS',
    kind: 'int',
    default: 30,
    doc: 'On SIGTERM/SIGINT the server stops accepting connections and lets requests and streams in flight finish for at most this many seconds before it exits.',
  },
  limitsStore: {
    env: 'TIDINGS_LIMITS_STORE',
    kind: 'string',
    default: 'auto',
    doc: 'Where rate limits and login throttles count: memory (this process only), database (shared by every process on the database), redis (TIDINGS_REDIS_URL), or auto: redis when TIDINGS_REDIS_URL is set, memory for a single SQLite process, else the database (PostgreSQL may be shared by several machines).',
  },
  redisUrl: {
    env: 'TIDINGS_REDIS_URL',
    kind: 'string',
    default: '',
    doc: 'Redis (redis://[user:password@]host:port[/db], rediss:// for TLS) that rate limits and login throttles count in, shared by every process and machine. Empty: they count in the database (see TIDINGS_LIMITS_STORE).',
  },
  redisTimeoutMs: {
    env: 'TIDINGS_REDIS_TIMEOUT_MS',
    kind: 'int',
    default: 2000,
    doc: 'Time limit of one Redis operation (a rate-limit or login-throttle count), in ms: past it the request answers 503 and the connection is dropped and opened again, so a Redis that hangs (paused, overloaded) costs a request this long at most.',
  },
  databaseTimeoutMs: {
    env: 'TIDINGS_DATABASE_TIMEOUT_MS',
    kind: 'int',
    default: 60000,
    doc: 'PostgreSQL: time limit of one statement without an answer, in ms; past it the statement fails (503 for a request) and its connection is dropped. Bounds what a hung server (paused, network partition) costs; migrations and maintenance are exempt. 0: no limit. /readyz answers 503 after 3 s whatever this is.',
  },
  publicUrl: {
    env: 'TIDINGS_PUBLIC_URL',
    kind: 'string',
    default: '',
    doc: 'External base URL (for `self` links and OAuth pages); derived from the request when empty.',
  },
  trustProxy: {
    env: 'TIDINGS_TRUST_PROXY',
    kind: 'list',
    default: [],
    doc: 'Reverse proxies whose X-Forwarded-For / X-Forwarded-Proto / X-Forwarded-Host are believed, comma-separated addresses or CIDRs (e.g. 127.0.0.1,10.0.0.0/8; also loopback, linklocal, uniquelocal). The client IP is then the nearest address not in this list. Empty: the headers are ignored and the client IP is the socket peer (login throttling and logs use it).',
  },
  logLevel: {
    env: 'TIDINGS_LOG_LEVEL',
    kind: 'string',
    default: 'info',
    doc: 'Log level: trace, debug, info, warn, error, fatal, silent. At info the server logs one line per request.',
  },
  logFormat: {
    env: 'TIDINGS_LOG_FORMAT',
    kind: 'string',
    default: 'auto',
    doc: 'Log format on stderr: json (one JSON object per line), pretty (human-readable, coloured), auto (pretty on a terminal, else json).',
  },
  metricsAllowedNetworks: {
    env: 'TIDINGS_METRICS_ALLOWED_NETWORKS',
    kind: 'list',
    default: ['127.0.0.0/8', '::1/128'],
    doc: 'Networks (CIDR, comma-separated) that may read /metrics (Prometheus format). Requests that came through a proxy are refused unless the proxy is trusted. Empty: /metrics is off.',
  },
  allowPrivateNetworks: {
    env: 'TIDINGS_ALLOW_PRIVATE_NETWORKS',
    kind: 'bool',
    default: false,
    doc: 'Let the fetcher reach loopback/private/link-local addresses (SSRF guard off). For tests and home setups.',
  },

  // Feed fetching and scheduling
  fetchTimeoutMs: {
    env: 'TIDINGS_FETCH_TIMEOUT_MS',
    kind: 'int',
    default: 30000,
    doc: 'Total time limit of one feed fetch, in ms.',
  },
  connectTimeoutMs: {
    env: 'TIDINGS_CONNECT_TIMEOUT_MS',
    kind: 'int',
    default: 10000,
    doc: 'TCP/TLS connect time limit, in ms.',
  },
  dnsTimeoutMs: {
    env: 'TIDINGS_DNS_TIMEOUT_MS',
    kind: 'int',
    default: 5000,
    doc: 'Time limit of one DNS lookup of the fetcher (feeds, article pages, icons), in ms. A name looked up while an earlier lookup of it is still out waits for that one.',
  },
  maxBodyBytes: {
    env: 'TIDINGS_MAX_BODY_BYTES',
    kind: 'int',
    default: 15 * 1024 * 1024,
    doc: 'Largest feed body accepted, before and after decompression.',
  },
  maxRedirects: { env: 'TIDINGS_MAX_REDIRECTS', kind: 'int', default: 5, doc: 'Redirects followed per fetch.' },
  userAgent: {
    env: 'TIDINGS_USER_AGENT',
    kind: 'string',
    default: 'Tidings/0.1 (+https://github.com/tidings; feed reader)',
    doc: 'User-Agent sent when fetching feeds and pages.',
  },
  fetchConcurrency: {
    env: 'TIDINGS_FETCH_CONCURRENCY',
    kind: 'int',
    default: 32,
    doc: 'Feeds fetched at once, in total.',
  },
  perHostConcurrency: {
    env: 'TIDINGS_PER_HOST_CONCURRENCY',
    kind: 'int',
    default: 4,
    doc: 'Feeds fetched at once from one host.',
  },
  minIntervalMinutes: {
    env: 'TIDINGS_MIN_INTERVAL_MINUTES',
    kind: 'int',
    default: 15,
    doc: 'Shortest refresh interval of a feed.',
  },
  maxIntervalMinutes: {
    env: 'TIDINGS_MAX_INTERVAL_MINUTES',
    kind: 'int',
    default: 1440,
    doc: 'Longest refresh interval of a feed (also the cap of error back-off).',
  },
  schedulerEnabled: {
    env: 'TIDINGS_SCHEDULER',
    kind: 'bool',
    default: true,
    doc: 'Refresh due feeds in the background while the server runs.',
  },
  schedulerTickSeconds: {
    env: 'TIDINGS_SCHEDULER_TICK_SECONDS',
    kind: 'int',
    default: 60,
    doc: 'How often the scheduler looks for due feeds.',
  },
  // Default by measurement (BENCHMARKS.md, Feed engine): on 2 cores one worker beat none and two.
  parseWorkers: {
    env: 'TIDINGS_PARSE_WORKERS',
    kind: 'int',
    default: -1,
    doc: 'Worker threads that read remote content (feeds on refresh and subscribe, article pages, web search result pages, feed and icon links of pages, OPML files), beside the thread serving the APIs and storing items, with a time limit of 30 s per document (0: on the main thread, with no limit: one crafted feed then holds every request). -1: one less than the CPU cores, at least 1, at most 2.',
  },
  // Off by measurement (BENCHMARKS.md, "Search index builds: batches prepared ahead"): 1.29-1.33x
  // the CPU, and no faster on a 2-core machine already busy. See src/search/README.md.
  searchIndexWorker: {
    env: 'TIDINGS_SEARCH_INDEX_WORKER',
    kind: 'bool',
    default: false,
    doc: "Prepare the search index's next batch of items (text extraction, passages, word counts) on a worker thread while the main thread writes the current one (no effect on one CPU core): about 1.3x the CPU (copying the batch between threads), for speed only where a core is idle. false: on the main thread, before each batch's write transaction.",
  },
  // Reader features (issue #14): full text, favicons, webhooks, WebSub. See src/feeds/README.md.
  fullTextAuto: {
    env: 'TIDINGS_FULL_TEXT_AUTO',
    kind: 'string',
    default: 'suggest',
    doc: 'Teaser-feed detection for subscriptions left on full-text "auto": suggest (check a sample of pages, show the verdict in `feed set`), enable (also fetch full text for detected teaser feeds), off (no detection fetches).',
  },
  webhookRetrySeconds: {
    env: 'TIDINGS_WEBHOOK_RETRY_SECONDS',
    kind: 'int',
    default: 30,
    doc: 'Delay before the first retry of a failed webhook delivery; each next retry waits twice as long (8 attempts in all, about 2 hours).',
  },
  fullTextMaxBytes: {
    env: 'TIDINGS_FULL_TEXT_MAX_BYTES',
    kind: 'int',
    default: 5 * 1024 * 1024,
    doc: 'Largest article page fetched for full text, before and after decompression (also capped by TIDINGS_MAX_BODY_BYTES).',
  },

  retentionDays: {
    env: 'TIDINGS_RETENTION_DAYS',
    kind: 'int',
    default: 0,
    doc: 'Delete read articles first stored more than this many days ago, unless starred, saved or tagged (the scheduler checks hourly; `tidings prune` runs it once). 0 keeps every article (Miniflux uses 60).',
  },

  // Search and answers
  llmBaseUrl: {
    env: 'TIDINGS_LLM_BASE_URL',
    kind: 'string',
    default: '',
    doc: 'OpenAI-compatible server (vLLM, llama.cpp, Ollama) for generative answers, e.g. http://127.0.0.1:11434/v1. Empty: built-in extractive engine.',
  },
  llmApiKey: {
    env: 'TIDINGS_LLM_API_KEY',
    kind: 'string',
    default: '',
    doc: 'API key sent to the OpenAI-compatible server, if it needs one.',
  },
  llmModel: {
    env: 'TIDINGS_LLM_MODEL',
    kind: 'string',
    default: '',
    doc: 'Model name on the OpenAI-compatible server; or, for answers written on this machine, a GGUF file (`/path/file.gguf`) or the name of a model pulled with `tidings model pull` (it wins over the one `tidings model use` picked).',
  },
  modelsDir: {
    env: 'TIDINGS_MODELS_DIR',
    kind: 'string',
    default: '',
    defaultDoc:
      '`$XDG_CACHE_HOME/tidings/models` (`~/.cache/tidings/models`; `~/Library/Caches/tidings/models` on macOS, `%LOCALAPPDATA%/tidings/models` on Windows)',
    doc: 'The model store: GGUF files pulled with `tidings model pull` (or in the admin settings), the one picked with `tidings model use`, and the lock that allows one download at a time. One per machine, shared by every worker and every data folder of the user.',
  },
  modelsHubUrl: {
    env: 'TIDINGS_MODELS_HUB_URL',
    kind: 'string',
    default: 'https://huggingface.co',
    doc: 'Where catalogue names and `hf:owner/repo/file.gguf` references are downloaded from: Hugging Face, or a mirror that serves the same `/<owner>/<repo>/resolve/main/<file>` paths.',
  },
  llmTimeoutMs: {
    env: 'TIDINGS_LLM_TIMEOUT_MS',
    kind: 'int',
    default: 120000,
    doc: 'Time limit of an upstream LLM call, in ms (also applied between streamed tokens).',
  },
  engineByModel: {
    env: 'TIDINGS_ENGINE_BY_MODEL',
    kind: 'json',
    default: {},
    doc: 'Per-model engine choice, JSON like {"sonar":"extractive","sonar-pro":"openai"} (engines: local, openai, extractive). Models not listed use the local model when one is selected and loads, else openai when TIDINGS_LLM_BASE_URL is set, else extractive.',
  },
  llmContextTokens: {
    env: 'TIDINGS_LLM_CONTEXT_TOKENS',
    kind: 'int',
    default: 16384,
    doc: 'Context window of the model, in tokens: retrieved article text is trimmed so the grounded prompt plus the answer fit (servers such as Ollama default to small windows and cut prompts silently). For the local model: the window of each parallel sequence, capped at what the model was trained on and lowered (to no less than 2048) when memory is short; memory grows with it.',
  },
  llmThreads: {
    env: 'TIDINGS_LLM_THREADS',
    kind: 'int',
    default: 0,
    doc: "CPU threads the local model generates with. 0: the machine's cores less one (more threads than cores slows generation by orders of magnitude).",
  },
  llmGpuLayers: {
    env: 'TIDINGS_LLM_GPU_LAYERS',
    kind: 'string',
    default: 'auto',
    doc: 'Layers of the local model on the GPU: auto (as many as fit in its memory), max, or a number (0: CPU only). Needs a GPU build of the runtime (`npm run gpu -- cuda|vulkan`; Metal on Apple silicon is built in).',
  },
  llmParallel: {
    env: 'TIDINGS_LLM_PARALLEL',
    kind: 'int',
    default: 2,
    doc: 'Answers the local model writes at once (sequences of one context, for the whole machine whatever --workers says).',
  },
  llmQueue: {
    env: 'TIDINGS_LLM_QUEUE',
    kind: 'int',
    default: 8,
    doc: 'Requests that wait for the local model when TIDINGS_LLM_PARALLEL are being written; past that a request is answered 429 with Retry-After.',
  },
  searxngUrl: {
    env: 'TIDINGS_SEARXNG_URL',
    kind: 'string',
    default: '',
    doc: 'SearXNG base URL for web search beside the local index (JSON API must be enabled). Empty: local index only.',
  },
  webResultsFetched: {
    env: 'TIDINGS_WEB_RESULTS_FETCHED',
    kind: 'int',
    default: 5,
    doc: 'Web results whose pages are fetched and read per search.',
  },

  // Chat completions API
  betaOpenToAll: {
    env: 'TIDINGS_BETA_OPEN',
    kind: 'bool',
    default: false,
    doc: 'Open the beta features (search_domain_filter, return_images, return_related_questions) to every key without approval.',
  },
  defaultTier: { env: 'TIDINGS_DEFAULT_TIER', kind: 'int', default: 0, doc: 'Rate-limit tier (0-5) of new API keys.' },
  priceTable: {
    env: 'TIDINGS_PRICE_TABLE',
    kind: 'string',
    default: 'none',
    doc: "Prices that costs are computed with: none (a personal server: usage records tokens and searches, costs are 0 and `tidings usage` shows none) or sonar (Perplexity's Sonar price table, see src/chat-api/prices.ts). Setting TIDINGS_PRICES also turns costs on, over the Sonar table.",
  },
  prices: {
    env: 'TIDINGS_PRICES',
    kind: 'json',
    default: {},
    doc: 'Overrides of the price table (US$ per million tokens, request fees), JSON merged over the Sonar table; see src/chat-api/prices.ts.',
  },
  rateLimits: {
    env: 'TIDINGS_RATE_LIMITS',
    kind: 'json',
    default: {},
    doc: 'Overrides of the requests-per-minute table by tier 0-5, JSON like {"sonar":[50,150,500,1000,4000,4000],"deep-research":[5,10,20,40,60,100]}.',
  },
  answerMaxConversationBytes: {
    env: 'TIDINGS_ANSWER_MAX_CONVERSATION_BYTES',
    kind: 'int',
    default: 256 * 1024,
    doc: "Largest conversation (UTF-8 bytes of all messages' content) a chat or ask request may send; larger ones are refused before their tokens are counted. Counting runs on the server's one thread at up to ~0.5 ms per KiB, so this bounds how long one request can hold every other (256 KiB is ~60,000 tokens of English).",
  },
  asyncJobConcurrency: {
    env: 'TIDINGS_ASYNC_JOB_CONCURRENCY',
    kind: 'int',
    default: 2,
    doc: 'Async (deep research) jobs run at once by the server.',
  },
  asyncJobRetentionDays: {
    env: 'TIDINGS_ASYNC_JOB_RETENTION_DAYS',
    kind: 'int',
    default: 7,
    doc: 'Days async jobs and their results are kept.',
  },
  claimLeaseSeconds: {
    env: 'TIDINGS_CLAIM_LEASE_SECONDS',
    kind: 'int',
    default: 60,
    doc: 'Processes sharing one database claim the async jobs they run and the feeds they refresh for this long, renewing the claim every third of it while they work; the work of a process that died is taken over by another once its claims run out.',
  },

  // Accounts
  tokenTtlDays: { env: 'TIDINGS_TOKEN_TTL_DAYS', kind: 'int', default: 365, doc: 'Lifetime of ClientLogin tokens.' },
  oauthRefreshTtlDays: {
    env: 'TIDINGS_OAUTH_REFRESH_TTL_DAYS',
    kind: 'int',
    default: 180,
    doc: 'Lifetime of an OAuth refresh token; each refresh issues a new one with a fresh lifetime (access tokens last one day).',
  },
  loginFailuresPerMinute: {
    env: 'TIDINGS_LOGIN_FAILURES_PER_MINUTE',
    kind: 'int',
    default: 10,
    doc: 'Failed logins allowed per username and client IP per minute (ClientLogin and the OAuth login page) before answering 429.',
  },

  // Per-user limits
  maxFeedsPerUser: {
    env: 'TIDINGS_MAX_FEEDS_PER_USER',
    kind: 'int',
    default: 5000,
    doc: 'Subscriptions one user may have; subscribing or importing beyond it is refused with a message (0: no limit).',
  },
  maxOpmlBytes: {
    env: 'TIDINGS_MAX_OPML_BYTES',
    kind: 'int',
    default: 5 * 1024 * 1024,
    doc: 'Largest OPML file accepted by an import (API and CLI), in bytes.',
  },
  maxLabelLength: {
    env: 'TIDINGS_MAX_LABEL_LENGTH',
    kind: 'int',
    default: 100,
    doc: 'Longest folder or tag name, in characters. Line breaks, control characters and text-direction overrides are always refused.',
  },

  maxLabelsPerUser: {
    env: 'TIDINGS_MAX_LABELS_PER_USER',
    kind: 'int',
    default: 1000,
    doc: 'Folders and tags one user may have; a request that would create more is refused with a message (0: no limit). A request names at most 100 tags or folders whatever this is.',
  },

  // Web app
  webSessionDays: {
    env: 'TIDINGS_WEB_SESSION_DAYS',
    kind: 'int',
    default: 30,
    doc: 'Days a web app session lasts without use (each use extends it); signing out or changing the password ends it at once.',
  },

  // Google Reader API
  readerItemCacheSize: {
    env: 'TIDINGS_READER_ITEM_CACHE',
    kind: 'int',
    default: 20000,
    doc: 'Items whose serialized JSON the Reader API keeps in memory (about 2-3 KB each), reused while the stored item is unchanged. 0 turns the cache off.',
  },
  readerItemCacheMb: {
    env: 'TIDINGS_READER_ITEM_CACHE_MB',
    kind: 'int',
    default: 32,
    doc: 'Memory cap of that cache in MiB of JSON: the oldest items leave first when either cap is reached.',
  },
} as const satisfies Record<string, OptionSpec>;

type KindType<K extends Kind> = K extends 'string'
  ? string
  : K extends 'int' | 'number'
    ? number
    : K extends 'bool'
      ? boolean
      : K extends 'list'
        ? string[]
        : Record<string, any>;

export type Config = { -readonly [K in keyof typeof OPTIONS]: KindType<(typeof OPTIONS)[K]['kind']> };

export class ConfigError extends Error {}

function parseValue(key: string, spec: OptionSpec, raw: unknown, source: string): unknown {
  if (typeof raw !== 'string') {
    // From a JSON config file: check type only.
    const ok =
      spec.kind === 'string'
        ? typeof raw === 'string'
        : spec.kind === 'int'
          ? Number.isInteger(raw)
          : spec.kind === 'number'
            ? typeof raw === 'number'
            : spec.kind === 'bool'
              ? typeof raw === 'boolean'
              : spec.kind === 'list'
                ? Array.isArray(raw)
                : typeof raw === 'object' && raw !== null;
    if (!ok)
      throw new ConfigError(`${source}: option "${key}" must be of type ${spec.kind}, got ${JSON.stringify(raw)}`);
    return raw;
  }
  const s = raw.trim();
  switch (spec.kind) {
    case 'string':
      return raw;
    case 'int': {
      if (!/^-?\d+$/.test(s)) throw new ConfigError(`${source}: ${key} must be a whole number, got "${raw}"`);
      return Number(s);
    }
    case 'number': {
      const n = Number(s);
      if (s === '' || !Number.isFinite(n)) throw new ConfigError(`${source}: ${key} must be a number, got "${raw}"`);
      return n;
    }
    case 'bool': {
      if (/^(1|true|yes|on)$/i.test(s)) return true;
      if (/^(0|false|no|off|)$/i.test(s)) return false;
      throw new ConfigError(`${source}: ${key} must be true or false, got "${raw}"`);
    }
    case 'list':
      return s === ''
        ? []
        : s
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean);
    case 'json': {
      try {
        return JSON.parse(s);
      } catch {
        throw new ConfigError(`${source}: ${key} must be JSON, got "${raw}"`);
      }
    }
  }
}

function flagToKey(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export interface LoadOptions {
  env?: Record<string, string | undefined>;
  /** Overrides from command-line flags, already keyed by option name (camelCase). */
  flags?: Partial<Record<string, unknown>>;
  /** Explicit overrides, e.g. from tests. Applied last. */
  overrides?: Partial<Config>;
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const out: Record<string, unknown> = {};
  for (const [k, spec] of Object.entries(OPTIONS)) out[k] = structuredClone(spec.default);

  out.dataDir = defaultDataDir(env);
  const dataFromEarly = (opts.overrides?.dataDir ??
    opts.flags?.dataDir ??
    (env.TIDINGS_DATA || undefined) ??
    out.dataDir) as string;
  const file = env.TIDINGS_CONFIG ?? join(dataFromEarly, 'config.json');
  if (existsSync(file)) {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${(e as Error).message}`);
    }
    for (const [k, v] of Object.entries(parsed)) {
      const spec = (OPTIONS as Record<string, OptionSpec>)[k];
      if (!spec)
        throw new ConfigError(`config file ${file}: unknown option "${k}" (see the configuration table in README.md)`);
      out[k] = parseValue(k, spec, v, `config file ${file}`);
    }
  } else if (env.TIDINGS_CONFIG) {
    throw new ConfigError(`TIDINGS_CONFIG points to ${file}, which does not exist`);
  }

  for (const [k, spec] of Object.entries(OPTIONS) as [string, OptionSpec][]) {
    const v = env[spec.env];
    if (v !== undefined && v !== '') out[k] = parseValue(k, spec, v, `environment variable ${spec.env}`);
  }
  for (const [rawKey, v] of Object.entries(opts.flags ?? {})) {
    if (v === undefined) continue;
    const k = flagToKey(rawKey);
    const spec = (OPTIONS as Record<string, OptionSpec>)[k];
    if (!spec) throw new ConfigError(`unknown option "--${rawKey}" (see the configuration table in README.md)`);
    out[k] = parseValue(k, spec, typeof v === 'string' ? v : v, `flag --${rawKey}`);
  }
  Object.assign(out, opts.overrides ?? {});
  const cfg = out as Config;
  validate(cfg);
  cfg.dataDir = resolve(cfg.dataDir);
  return cfg;
}

function validate(c: Config): void {
  for (const entry of c.trustProxy) {
    if (!isProxyAddress(entry))
      throw new ConfigError(
        `trustProxy: "${entry}" is not an IP address, a CIDR (like 10.0.0.0/8) or one of loopback, linklocal, uniquelocal`,
      );
  }
  if (!(LOG_LEVELS as readonly string[]).includes(c.logLevel))
    throw new ConfigError(`logLevel (TIDINGS_LOG_LEVEL) must be one of ${LOG_LEVELS.join(', ')}, got "${c.logLevel}"`);
  if (!(LOG_FORMATS as readonly string[]).includes(c.logFormat))
    throw new ConfigError(
      `logFormat (TIDINGS_LOG_FORMAT) must be one of ${LOG_FORMATS.join(', ')}, got "${c.logFormat}"`,
    );
  if (c.dataDir.trim() === '') throw new ConfigError('dataDir (TIDINGS_DATA, --data) must not be empty');
  if (c.port < 0 || c.port > 65535) throw new ConfigError(`port must be 0-65535, got ${c.port}`);
  if (c.workers < 0)
    throw new ConfigError(`workers (TIDINGS_WORKERS) must be 0 (one per CPU core) or more, got ${c.workers}`);
  if (!['auto', 'reuse-port', 'round-robin'].includes(c.workerBalancing))
    throw new ConfigError(
      `workerBalancing (TIDINGS_WORKER_BALANCING) must be auto, reuse-port or round-robin, got "${c.workerBalancing}"`,
    );
  if (c.workerBalancing === 'reuse-port' && process.platform !== 'linux')
    throw new ConfigError(
      `workerBalancing (TIDINGS_WORKER_BALANCING) reuse-port needs Linux (this is ${process.platform}): use auto or round-robin`,
    );
  if (c.acceptSockets < 1 || c.acceptSockets > 1024)
    throw new ConfigError(`acceptSockets (TIDINGS_ACCEPT_SOCKETS) must be 1-1024, got ${c.acceptSockets}`);
  if (c.listenBacklog < 1)
    throw new ConfigError(`listenBacklog (TIDINGS_LISTEN_BACKLOG) must be at least 1, got ${c.listenBacklog}`);
  if (c.drainSeconds < 0)
    throw new ConfigError(`drainSeconds (TIDINGS_DRAIN_SECONDS) must be 0 or more, got ${c.drainSeconds}`);
  if (!['auto', 'memory', 'database', 'redis'].includes(c.limitsStore))
    throw new ConfigError(
      `limitsStore (TIDINGS_LIMITS_STORE) must be auto, memory, database or redis, got "${c.limitsStore}"`,
    );
  if (c.limitsStore === 'redis' && !c.redisUrl.trim())
    throw new ConfigError(
      'limitsStore (TIDINGS_LIMITS_STORE) is redis but TIDINGS_REDIS_URL is empty: set the Redis URL',
    );
  if (c.redisTimeoutMs < 1)
    throw new ConfigError(`redisTimeoutMs (TIDINGS_REDIS_TIMEOUT_MS) must be at least 1, got ${c.redisTimeoutMs}`);
  if (c.databaseTimeoutMs < 0)
    throw new ConfigError(
      `databaseTimeoutMs (TIDINGS_DATABASE_TIMEOUT_MS) must be 0 (no limit) or more, got ${c.databaseTimeoutMs}`,
    );
  if (c.redisUrl.trim() && !/^rediss?:\/\//i.test(c.redisUrl.trim()))
    throw new ConfigError('redisUrl (TIDINGS_REDIS_URL) must start with redis:// or rediss://');
  if (c.minIntervalMinutes < 1) throw new ConfigError('minIntervalMinutes must be at least 1');
  if (c.maxIntervalMinutes < c.minIntervalMinutes)
    throw new ConfigError('maxIntervalMinutes must be at least minIntervalMinutes');
  if (c.claimLeaseSeconds < 1) throw new ConfigError('claimLeaseSeconds must be at least 1');
  if (c.dnsTimeoutMs < 1) throw new ConfigError('dnsTimeoutMs (TIDINGS_DNS_TIMEOUT_MS) must be at least 1 ms');
  if (c.fetchConcurrency < 1 || c.perHostConcurrency < 1)
    throw new ConfigError('fetch concurrency limits must be at least 1');
  if (c.defaultTier < 0 || c.defaultTier > 5) throw new ConfigError('defaultTier must be 0-5');
  if (c.maxBodyBytes < 1024) throw new ConfigError('maxBodyBytes must be at least 1024');
  if (!['suggest', 'enable', 'off'].includes(c.fullTextAuto))
    throw new ConfigError(`fullTextAuto must be suggest, enable or off, got "${c.fullTextAuto}"`);
  if (c.webhookRetrySeconds < 1) throw new ConfigError('webhookRetrySeconds must be at least 1');
  if (c.fullTextMaxBytes < 1024) throw new ConfigError('fullTextMaxBytes must be at least 1024');
  if (c.maxFeedsPerUser < 0) throw new ConfigError('maxFeedsPerUser must be 0 (no limit) or more');
  if (c.answerMaxConversationBytes < 1024) throw new ConfigError('answerMaxConversationBytes must be at least 1024');
  if (c.maxOpmlBytes < 1024) throw new ConfigError('maxOpmlBytes must be at least 1024');
  if (c.maxLabelLength < 1) throw new ConfigError('maxLabelLength must be at least 1');
  if (c.maxLabelsPerUser < 0) throw new ConfigError('maxLabelsPerUser must be 0 (no limit) or more');
  for (const n of c.metricsAllowedNetworks) {
    if (!ipaddr.isValidCIDR(n) && !ipaddr.isValid(n))
      throw new ConfigError(
        `metricsAllowedNetworks (TIDINGS_METRICS_ALLOWED_NETWORKS): "${n}" is not an address or CIDR range like 10.0.0.0/8`,
      );
  }
  if (c.priceTable !== 'none' && c.priceTable !== 'sonar')
    throw new ConfigError(`priceTable (TIDINGS_PRICE_TABLE) must be none or sonar, got "${c.priceTable}"`);
  if (c.retentionDays < 0)
    throw new ConfigError('retentionDays (TIDINGS_RETENTION_DAYS) must be 0 (keep everything) or a number of days');
  if (c.llmContextTokens < 1024) throw new ConfigError('llmContextTokens must be at least 1024');
  if (!/^https?:\/\/[^/]/i.test(c.modelsHubUrl.trim()))
    throw new ConfigError(
      `modelsHubUrl (TIDINGS_MODELS_HUB_URL) must be an http(s) URL like https://huggingface.co, got "${c.modelsHubUrl}"`,
    );
  if (c.llmThreads < 0)
    throw new ConfigError(`llmThreads (TIDINGS_LLM_THREADS) must be 0 (automatic) or more, got ${c.llmThreads}`);
  if (!/^(auto|max|\d+)$/.test(String(c.llmGpuLayers)))
    throw new ConfigError(
      `llmGpuLayers (TIDINGS_LLM_GPU_LAYERS) must be auto, max or a number of layers (0: CPU only), got "${c.llmGpuLayers}"`,
    );
  if (c.llmParallel < 1)
    throw new ConfigError(`llmParallel (TIDINGS_LLM_PARALLEL) must be at least 1, got ${c.llmParallel}`);
  if (c.llmQueue < 0) throw new ConfigError(`llmQueue (TIDINGS_LLM_QUEUE) must be 0 or more, got ${c.llmQueue}`);
}

function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [addr, bits, extra] = entry.split('/');
  const family = isIP(addr);
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Parses `--set key=value` pairs. */
export function parseSetFlags(pairs: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs ?? []) {
    const i = p.indexOf('=');
    if (i <= 0) throw new ConfigError(`--set expects key=value, got "${p}"`);
    out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

export function configTableMarkdown(): string {
  const rows = Object.entries(OPTIONS as Record<string, OptionSpec>).map(
    ([k, s]) =>
      `| \`${s.env}\` | \`${k}\` | ${s.kind} | ${s.defaultDoc ?? `\`${JSON.stringify(s.default)}\``} | ${s.doc} |`,
  );
  return [
    '| environment variable | file key / `--set` key | type | default | meaning |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
