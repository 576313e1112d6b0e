// The floors of src/: every top-level folder (and src/main.ts) on one layer, bottom first. A value
// import may go down or stay on its floor, never up (test/import-boundaries.test.ts checks it on
// every `npm test`), and the client protocols never import one another. The README's Architecture
// table is generated from this list (`node scripts/architecture-table.ts`), so the two cannot drift.
//
// Why this order: the ground is what any domain may use and that uses nothing of theirs; the store
// under everything that keeps data; secrets and metrics just above it, for the domains; the feed
// engine, search, accounts and the local models next (each other's peers); the user's library and
// the answer pipelines on them; rules and webhooks react to the library and to new items; the
// client protocols speak to users over all of that; the server and the CLI put it together.

export interface Floor {
  name: string;
  /** Folder (with its slash) or top-level file of src/, and what lives there. */
  rooms: [string, string][];
}

export const LAYERS: Floor[] = [
  {
    name: 'ground',
    rooms: [
      ['model/', 'plain types shared across domains'],
      ['config/', 'the typed configuration (one declaration per option)'],
      ['log/', 'structured logging (pino): JSON lines, or pretty on a terminal'],
      ['text/', 'text tools of every domain: HTML to text, sentences, stopwords, page debris, escaping'],
      [
        'net/',
        'the one outbound HTTP client (feeds, favicons, full text, web pages, WebSub, webhooks): SSRF guard, redirects checked hop by hop, time, size and concurrency limits, `NetError`',
      ],
      [
        'runtime/',
        'what every domain is given: the `App` type, `perApp`, claim owners, startup garbage collection, a first start without the type stripper',
      ],
      [
        'http/',
        'the HTTP toolkit: the query/form parameter parser, Server-Sent Events, allowed methods, the error shape each API declares',
      ],
    ],
  },
  {
    name: 'store',
    rooms: [
      [
        'store/',
        'the one storage layer (`open-store.ts` picks SQLite or PostgreSQL from `TIDINGS_DATABASE_URL`), async repository interfaces (`repositories.ts`), their SQLite (`sqlite/`) and PostgreSQL (`postgres/`) implementations, one file per migration (`migrations/`), `tidings db copy`',
      ],
    ],
  },
  {
    name: 'services of the store',
    rooms: [
      [
        'secrets/',
        'the server keys: HMAC signing (write tokens, sessions, CSRF) and sealed secrets (webhooks, WebSub)',
      ],
      ['observability/', 'Prometheus metrics (prom-client) and the per-request log line'],
    ],
  },
  {
    name: 'engines',
    rooms: [
      [
        'feeds/',
        'everything that turns the web into stored articles: encoding, parser, sanitizer, discovery, OPML, scheduler, full text, favicons, WebSub',
      ],
      [
        'search/',
        'the article index (own postings in SQLite, BM25 scored in memory, passage re-ranking) and web search providers (SearXNG) behind one `SearchService`',
      ],
      [
        'auth/',
        'accounts and their credentials: passwords (scrypt), ClientLogin tokens, the OAuth 2.0 authorization server, chat API keys, Fever passwords',
      ],
      [
        'models/',
        'the per-machine model store (`tidings model pull`, `list`, `use`, `remove`; Admin > Models): a small catalogue of GGUF models, resumable checked downloads, which file the local engine loads (`selectedModelFile`) and what its runtime reports',
      ],
    ],
  },
  {
    name: 'library and answers',
    rooms: [
      [
        'library/',
        "the user's library under every client: item states (each change raised once through hooks), labels, the catalogue, stream ids and filters, continuations",
      ],
      [
        'answer/',
        'answer engines (built-in extractive, OpenAI-compatible) and the per-model pipelines (`sonar` … `sonar-deep-research`, `r1-1776`) behind one `AnswerService`',
      ],
    ],
  },
  {
    name: 'reactions',
    rooms: [
      ['rules/', "per-user filter rules on new items (hide, keep only, mark read, star, label), from the user's view"],
      ['webhooks/', 'outgoing webhooks (`new-item`, `starred`): signed JSON, retried with back-off, logged'],
    ],
  },
  {
    name: 'protocols',
    rooms: [
      ['reader-api/', 'the Google Reader API: its wire format (Fastify plugin; protocol notes in its README)'],
      ['fever/', 'the Fever API (v3) at `/fever/` and `/api/fever.php`'],
      [
        'web/',
        'the web app: the page (plain ES modules and CSS in `public/`) and its JSON API `/api/v1` (sessions, CSRF, OpenAPI)',
      ],
      [
        'chat-api/',
        'the Sonar-compatible `/chat/completions` API: validation, SSE, rate limits, usage and cost, async jobs',
      ],
    ],
  },
  {
    name: 'composition',
    rooms: [
      [
        'server/',
        '`createApp` (the composition root), the one Fastify server every API is mounted on, health, the errors raised before any route runs',
      ],
      ['cli/', 'the `tidings` command; each domain registers its subcommands in `cli/commands/`'],
      ['main.ts', '`node src/main.ts`, kept from older instructions: the same as `tidings serve`'],
    ],
  },
];

/** The client protocols: they share the library and never import one another. */
export const PROTOCOLS = ['reader-api/', 'fever/', 'web/', 'chat-api/'];

/** The floor (0 = ground) of a folder or top-level file of src/, by its name as in LAYERS. */
export const floorOf = new Map(LAYERS.flatMap((f, i) => f.rooms.map(([room]) => [room, i] as const)));

/** The README's Architecture table: top floor first, as the house stands. */
export function architectureMarkdown(): string {
  const rows = LAYERS.map((f, i) => ({ f, i }))
    .reverse()
    .flatMap(({ f, i }) =>
      f.rooms.map(([room, what], j) => `| ${j === 0 ? `${i + 1}: ${f.name}` : ''} | \`${room}\` | ${what} |`),
    );
  return ['| floor | folder | what lives there |', '|---|---|---|', ...rows].join('\n');
}

const START = '<!-- architecture-table:start -->';
const END = '<!-- architecture-table:end -->';

/** The README with its Architecture table regenerated from LAYERS. */
export function readmeWithArchitecture(readme: string): string {
  const i = readme.indexOf(START),
    j = readme.indexOf(END);
  if (i < 0 || j < i) throw new Error('README.md lacks the architecture-table markers');
  return readme.slice(0, i + START.length) + '\n' + architectureMarkdown() + '\n' + readme.slice(j);
}
