// wrk (https://github.com/wg/wrk, Debian `wrk`) as the load generator of the `--workers` runs:
// a C client costs a few µs of CPU per request, where the in-process Node client costs about as
// much as a cheap request itself and, on 2 cores, took the CPU a second worker needs. The
// requests (method, path, headers, a rotating set of bodies) are formatted once in a Lua script,
// and the figures come back as one JSON line from wrk's done() hook. Without wrk on the PATH the
// benches fall back to their Node client and say so.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WrkRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Bodies sent in turn, one per request (a POST's questions); none for a GET. */
  bodies?: string[];
}

export interface WrkResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers outside 2xx/3xx plus socket errors: a run with any is not a throughput figure. */
  errors: number;
  /** CPU ms wrk itself used per request (what the client took from the server's cores). */
  clientCpuMsPerRequest: number;
}

/** Whether `wrk` can be run (the benches use it for --workers when it can). */
export function wrkAvailable(): boolean {
  if (process.env.BENCH_CLIENT === 'node') return false;
  const r = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return !r.error;
}

/** Lua string literal (long brackets would need a level that never occurs in the text). */
const lua = (s: string) => JSON.stringify(s).replace(/\\u([0-9a-fA-F]{4})/g, (_, h) => `\\u{${h}}`);

function script(req: WrkRequest): string {
  const headers = Object.entries(req.headers ?? {})
    .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
    .join(', ');
  const bodies = req.bodies?.length ? req.bodies : [null];
  // Formatted in init(): wrk sets the Host header only once the script is loaded.
  return `
local headers = { ${headers} }
local formatted = {}
init = function(args)
${bodies.map((b) => `  formatted[#formatted + 1] = wrk.format(${lua(req.method)}, ${lua(req.path)}, headers, ${b === null ? 'nil' : lua(b)})`).join('\n')}
end
local i = 0
request = function()
  i = i % #formatted + 1
  return formatted[i]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout + e.status))
end
`;
}

/** Runs wrk (one thread, `connections` keep-alive connections) against `baseUrl` for `seconds`. */
export async function runWrk(
  baseUrl: string,
  req: WrkRequest,
  opts: { connections: number; seconds: number; timeoutSeconds?: number },
): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-wrk-'));
  const file = join(dir, 'requests.lua');
  writeFileSync(file, script(req));
  try {
    // Through sh, whose `times` prints the CPU its children used: wrk's own cost per request.
    const args = ['-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--timeout', `${opts.timeoutSeconds ?? 30}s`];
    const child = spawn(
      'sh',
      ['-c', 'wrk "$@"; s=$?; echo WRK_TIMES; times; exit $s', 'sh', ...args, '-s', file, baseUrl],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d;
    });
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    // "WRK_TIMES", then `times`: the shell's own user and system time, then its children's.
    const times = /WRK_TIMES\s+\S+ \S+\s+(\d+)m([\d.]+)s (\d+)m([\d.]+)s/.exec(out);
    const cpuMs = times
      ? (Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4])) * 1000
      : NaN;
    const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
    if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${out.trim().slice(0, 500)}`);
    const j = JSON.parse(line.slice('WRK_RESULT '.length)) as {
      requests: number;
      durationUs: number;
      p50Us: number;
      p99Us: number;
      errors: number;
    };
    return {
      requests: j.requests,
      rps: j.requests / (j.durationUs / 1e6),
      p50Ms: j.p50Us / 1000,
      p99Ms: j.p99Us / 1000,
      errors: j.errors,
      clientCpuMsPerRequest: cpuMs / Math.max(1, j.requests),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
