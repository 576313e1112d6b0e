// Where the CPU of a Reader page goes, one tree at a time: a generated library (bench/library.ts),
// the app served in this process (the sources under --root, default this checkout), N requests
// of one call, profiled with the inspector (only the requests), the top functions by self time.
//
//   node bench/reader-page-profile.ts [--root DIR] [--items 20000] [--feeds 100] [--requests 200]
//        [--call contents|ids150]  [--out FILE.cpuprofile]
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { request } from 'undici';
import { generateLibrary } from './library.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import { tempDataDir } from '../test/helpers.ts';
import { flagValue } from './backend.ts';

const argv = process.argv.slice(2);
const root = resolve(flagValue(argv, 'root') ?? resolve(fileURLToPath(import.meta.url), '../..'));
const items = Number(flagValue(argv, 'items') ?? 20000);
const requests = Number(flagValue(argv, 'requests') ?? 200);
const call = flagValue(argv, 'call') ?? 'contents';
const src = (p: string) => import(pathToFileURL(join(root, 'src', p)).href);
// The composition root moved (src/app.ts, src/http/server.ts -> src/server/): either layout, so a
// tree from before the move can be profiled too.
const first = (...ps: string[]) => ps.find((p) => existsSync(join(root, 'src', p)))!;
const dataDir = tempDataDir('tidings-page-profile-');
generateLibrary(dataDir, {
  feeds: Number(flagValue(argv, 'feeds') ?? 100),
  items,
  username: 'bench',
  passwordHash: await hashPassword('bench-password'),
});
const { loadConfig } = await src('config/config.ts');
const { createApp } = await src(first('server/create-app.ts', 'app.ts'));
const { silentLogger } = await src('log/logger.ts');
const { startServer } = await src(first('server/server.ts', 'http/server.ts'));
const app = await createApp(
  loadConfig({
    env: {},
    overrides: { dataDir, host: '127.0.0.1', port: 0, schedulerEnabled: false, logLevel: 'silent' },
  }),
  silentLogger,
);
const { url } = await startServer(app);
const login = await (
  await fetch(`${url}/accounts/ClientLogin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Email: 'bench', Passwd: 'bench-password' }),
  })
).text();
const auth = {
  authorization: `GoogleLogin auth=${login
    .split('\n')
    .find((l) => l.startsWith('Auth='))!
    .slice(5)}`,
};
const RL = encodeURIComponent('user/-/state/com.google/reading-list');
const ids = (
  (await (
    await fetch(`${url}/reader/api/0/stream/items/ids?output=json&s=${RL}&n=1000`, { headers: auth })
  ).json()) as {
    itemRefs: { id: string }[];
  }
).itemRefs.map((r) => r.id);
const body150 = ids
  .slice(0, 150)
  .map((i) => `i=${i}`)
  .join('&');
const one = async () => {
  const r =
    call === 'ids150'
      ? await request(`${url}/reader/api/0/stream/items/contents?output=json`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
          body: body150,
        })
      : await request(`${url}/reader/api/0/stream/contents/${RL}?output=json&n=1000`, { headers: auth });
  // Read and dropped: the client's own copy is no part of the server's cost.
  for await (const _chunk of r.body);
};
for (let i = 0; i < 30; i++) await one();
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.start');
const c0 = process.cpuUsage();
for (let i = 0; i < requests; i++) await one();
const c = process.cpuUsage(c0);
const { profile } = await session.post('Profiler.stop');
const out = flagValue(argv, 'out');
if (out) writeFileSync(out, JSON.stringify(profile));
console.log(
  `${root}: ${call}, CPU (server and client, one process) ${((c.user + c.system) / 1000 / requests).toFixed(2)} ms a request`,
);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
for (let i = 0; i < profile.samples!.length; i++) {
  const n = byId.get(profile.samples![i]!)!;
  const k = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
  self.set(k, (self.get(k) ?? 0) + (profile.timeDeltas![i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15))
  console.log(`  ${((v / total) * 100).toFixed(1).padStart(5)} %  ${(v / 1000 / requests).toFixed(2)} ms/req  ${k}`);
session.disconnect();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
