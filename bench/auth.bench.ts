// How much authenticate() adds to every reader API request, against baselines measured in the same
// run: a primary-key user lookup (the least any authenticated request does) and authenticate with
// the last-use write on every call (what the once-a-minute rule avoids).
// Run: node bench/auth.bench.ts [tokens=10000] [calls=50000]
import { rmSync } from 'node:fs';
import { loadConfig } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { authenticate } from '../src/auth/authenticate.ts';
import { issueClientLoginToken } from '../src/auth/tokens.ts';
import { authStore } from '../src/auth/repositories.ts';
import { tempDataDir } from '../test/helpers.ts';

const TOKENS = Number(process.argv[2] ?? 10_000);
const CALLS = Number(process.argv[3] ?? 50_000);

const dataDir = tempDataDir('tidings-auth-bench-');
const app = await createApp(loadConfig({ env: {}, overrides: { dataDir } }), silentLogger);
const users: { id: number }[] = [];
for (let i = 0; i < 100; i++) users.push(await app.users.create(`user${i}`, 'x'));
const headers: string[] = [];
await app.store.transaction(async () => {
  for (let i = 0; i < TOKENS; i++)
    headers.push(`GoogleLogin auth=${(await issueClientLoginToken(app, users[i % users.length]!.id)).token}`);
});

async function measure(name: string, fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < 2000; i++) await fn(i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await fn(i);
  const ns = Number(process.hrtime.bigint() - t0) / CALLS;
  console.log(
    `${name.padEnd(48)} ${(ns / 1000).toFixed(2).padStart(8)} µs/call  ${Math.round(1e9 / ns)
      .toLocaleString('en')
      .padStart(10)} calls/s`,
  );
  return ns;
}

console.log(`${TOKENS} tokens, ${CALLS} calls each`);
const base = await measure('baseline: users.findById (PK lookup)', (i) =>
  app.users.findById(users[i % users.length]!.id),
);
// Every token used once already, as in steady state: within a minute no last-use writes happen.
for (const h of headers) await authenticate(app, h);
const auth = await measure('authenticate (last use written once a minute)', (i) =>
  authenticate(app, headers[i % TOKENS]!),
);
const tokens = authStore(app).tokens;
const everyTime = await measure('authenticate + last-use write on every call', async (i) => {
  const a = await authenticate(app, headers[i % TOKENS]!);
  if (a) await tokens.markUsed(a.tokenId, Math.floor(Date.now() / 1000));
});
const bad = await measure('authenticate, unknown token (401 path)', (i) =>
  authenticate(app, `Bearer tdgl_unknown${i}`),
);
console.log(
  `ratios: authenticate/baseline ${(auth / base).toFixed(2)}x, write-every-call/authenticate ${(everyTime / auth).toFixed(2)}x, unknown/baseline ${(bad / base).toFixed(2)}x`,
);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
