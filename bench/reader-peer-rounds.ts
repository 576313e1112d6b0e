// The Reader pages side by side, round by round: FreshRSS (php -S) and one or more Tidings
// checkouts, each on a copy of data folders a `bench/freshrss-peer.bench.ts --keep` run left
// behind (FreshRSS's first refresh of 100k items takes 10-25 minutes, so this reuses it). Each
// round calls every server once per call, in a rotating order, so load hits all sides alike; it
// prints each side's p50, the FreshRSS/Tidings ratio of every round, and each server process's
// CPU per call (from each thread's /proc/…/schedstat, in ns: the figure that holds when the
// machine is busy). Read-only calls only (no edit-tag), so the folders are not changed by the
// calls; Tidings applies its pending migrations on start, so give each checkout its own copy.
//
// Two clients time the same calls (--client fetch|lean|both, default both): `fetch` is Node's
// fetch (undici) with the body read by `arrayBuffer()`, as ../shared/tools/greader-bench.mjs
// does; `lean` is node:http with a keep-alive Agent, the body taken as the Buffers the socket
// gives, neither joined, decoded nor parsed. On 2 cores the client shares the CPU with the
// servers, and fetch spends ~2 ms a call (5-7 ms reading a 1.9 MB page) that is added to both
// sides' times and compresses the ratio; the lean client's cost is a fraction of that. The
// client's own CPU per call (process.cpuUsage) is printed so the difference is visible.
// `curl` (--client curl, or all) runs Debian's curl once per call, the body to /dev/null, and
// takes curl's own time_total - time_connect: a C client, its start-up and the local connect
// left out of the figure (its CPU is not in this process, so none is printed for it).
//
//   node bench/reader-peer-rounds.ts --freshrss /work/peers/FreshRSS --freshrss-data DIR
//        --tidings this=DIR [--tidings main=/work/main:DIR2 …] [--runs 10] [--client both]
//   (--tidings LABEL=[CHECKOUT:]DATA; without CHECKOUT, this checkout)
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkoutSpecs, serveCheckout } from './server-log.ts';
import { processTreeRunMs } from './process-cpu.ts';
import { readerCalls, sendLean, type ReaderCall } from './greader-calls.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const _all = (name: string) => argv.flatMap((a, i) => (argv[i - 1] === `--${name}` ? [a] : []));
const FRESHRSS = opt('freshrss');
const FR_DATA = opt('freshrss-data');
const RUNS = Number(opt('runs') ?? 10);
const CLIENT = opt('client') ?? 'both';
const CLIENT_SETS: Record<string, ClientName[]> = {
  fetch: ['fetch'],
  lean: ['lean'],
  curl: ['curl'],
  both: ['fetch', 'lean'],
  all: ['fetch', 'lean', 'curl'],
};
if (!CLIENT_SETS[CLIENT]) {
  console.error(`--client must be one of ${Object.keys(CLIENT_SETS).join(', ')}, not ${CLIENT}`);
  process.exit(2);
}
const CLIENTS = CLIENT_SETS[CLIENT]!;
const tidings = checkoutSpecs(argv, ROOT);
if (!FRESHRSS || !FR_DATA || !tidings.length || tidings.some((t) => !t.label || !t.data)) {
  console.error(
    'usage: node bench/reader-peer-rounds.ts --freshrss DIR --freshrss-data DIR --tidings LABEL=[CHECKOUT:]DATA … [--runs N]',
  );
  process.exit(2);
}
const USER = 'bench';
const PASS = 'bench-password';
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

type ClientName = 'fetch' | 'lean' | 'curl';
type Call = ReaderCall;
interface Side {
  label: string;
  child: ChildProcess;
  calls: [string, Call][];
  /** keyed by `${client} ${call name}` */
  times: Map<string, number[]>;
  cpu: Map<string, number>;
  clientCpu: Map<string, number>;
  agent: Agent;
}

/** Status and byte count; the body is read to the end as it arrives, not copied or decoded. */
async function callFetch(call: Call): Promise<[number, number]> {
  const r = await fetch(call.url, { method: call.method, headers: call.headers, body: call.body });
  return [r.status, (await r.arrayBuffer()).byteLength];
}

/** Status, byte count and curl's own milliseconds from the request's start to the body's end. */
function callCurl(call: Call): Promise<[number, number, number]> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_connect} %{time_total}'];
  for (const [k, v] of Object.entries(call.headers)) args.push('-H', `${k}: ${v}`);
  if (call.body !== undefined) args.push('--data-binary', call.body);
  args.push(call.url);
  return new Promise((done, fail) =>
    execFile('curl', args, (err, out) => {
      if (err) return fail(err);
      const [status, bytes, connect, total] = out.trim().split(' ').map(Number) as [number, number, number, number];
      done([status, bytes, (total - connect) * 1000]);
    }),
  );
}

/** The calls of each round: the reads of greader-bench.mjs that carry whole items (bench/greader-calls.ts). */
const ROUND_CALLS = ['stream/contents n=1000', 'stream/contents n=1000 unread', 'items/contents 150 ids'];

async function sideOf(label: string, child: ChildProcess, base: string): Promise<Side> {
  const { calls } = await readerCalls(base, USER, PASS);
  return {
    label,
    child,
    times: new Map(),
    cpu: new Map(),
    clientCpu: new Map(),
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    calls: ROUND_CALLS.map((name) => [name, calls.get(name)!]),
  };
}

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  const sides: Side[] = [];
  try {
    const phpPort = await freePort();
    const php = spawn('php', ['-S', `127.0.0.1:${phpPort}`, '-t', 'p'], {
      cwd: FRESHRSS,
      env: { ...process.env, DATA_PATH: FR_DATA },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    children.push(php);
    await new Promise((r) => setTimeout(r, 1000));
    sides.push(await sideOf('FreshRSS', php, `http://127.0.0.1:${phpPort}/api/greader.php`));
    for (const t of tidings) {
      const { child, url } = await serveCheckout(t.root, t.data, children, { TIDINGS_LOG_LEVEL: 'info' });
      sides.push(await sideOf(t.label, child, url));
    }
    const loadBefore = load();
    const names = sides[0]!.calls.map(([n]) => n);
    const add = (m: Map<string, number>, key: string, v: number) => m.set(key, (m.get(key) ?? 0) + v);
    for (let round = 0; round < RUNS + 2; round++)
      for (let c = 0; c < names.length; c++)
        for (let j = 0; j < CLIENTS.length; j++) {
          // Which client goes first alternates too, so neither always follows the other's garbage.
          const client = CLIENTS[(round + j) % CLIENTS.length]!;
          const key = `${client} ${names[c]}`;
          for (let k = 0; k < sides.length; k++) {
            const side = sides[(round + c + k) % sides.length]!;
            const call = side.calls[c]![1];
            const cpu0 = processTreeRunMs(side.child.pid!);
            const own0 = process.cpuUsage();
            const t0 = performance.now();
            let status: number;
            let bytes: number;
            let ms: number;
            if (client === 'curl') [status, bytes, ms] = await callCurl(call);
            else {
              [status, bytes] = client === 'lean' ? await sendLean(side.agent, call) : await callFetch(call);
              ms = performance.now() - t0;
            }
            const own = process.cpuUsage(own0);
            if (status !== 200 || bytes === 0) throw new Error(`${side.label} ${key}: HTTP ${status}, ${bytes} bytes`);
            if (round < 2) continue;
            side.times.set(key, [...(side.times.get(key) ?? []), ms]);
            add(side.cpu, key, processTreeRunMs(side.child.pid!) - cpu0);
            add(side.clientCpu, key, (own.user + own.system) / 1000);
          }
        }
    const p50 = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
    console.log(
      `${new Date().toISOString()}, ${RUNS} rounds, load before ${loadBefore}, after ${load()}; sides: ${sides.map((s) => s.label).join(', ')}`,
    );
    for (const name of names.flatMap((n) => CLIENTS.map((c) => `${c} ${n}`))) {
      console.log(`\n${name}`);
      const fr = sides[0]!;
      for (const s of sides)
        console.log(
          `  ${s.label.padEnd(10)} p50 ${p50(s.times.get(name)!).toFixed(1).padStart(7)} ms   server CPU ${(s.cpu.get(name)! / RUNS).toFixed(1).padStart(6)} ms/call` +
            (name.startsWith('curl ')
              ? ''
              : `   client CPU ${(s.clientCpu.get(name)! / RUNS).toFixed(1).padStart(5)} ms/call`),
        );
      for (const s of sides.slice(1)) {
        const rounds = fr.times.get(name)!.map((f, i) => f / s.times.get(name)![i]!);
        const sorted = [...rounds].sort((a, b) => a - b);
        console.log(
          `  FreshRSS/${s.label}: p50 ${(p50(fr.times.get(name)!) / p50(s.times.get(name)!)).toFixed(1)}x, ` +
            `per round ${sorted[0]!.toFixed(1)}-${sorted.at(-1)!.toFixed(1)}x (median ${p50(rounds).toFixed(1)}x; ` +
            `${rounds.filter((x) => x >= 10).length}/${rounds.length} rounds >= 10x): ${rounds.map((x) => x.toFixed(1)).join(' ')}; ` +
            `server CPU ${s.cpu.get(name)! > 0 ? `${(fr.cpu.get(name)! / s.cpu.get(name)!).toFixed(1)}x` : 'n/a'}`,
        );
      }
    }
    console.log(
      `\nserving process RSS after the calls: ${sides.map((s) => `${s.label} ${rssMb(s.child.pid!).toFixed(0)} MB`).join(', ')}`,
    );
  } finally {
    for (const c of children) c.kill('SIGTERM');
    for (const s of sides) s.agent.destroy();
  }
}

await main();
