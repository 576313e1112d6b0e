// `tidings serve --workers N` as a child process for the `--workers` benches: started on a free
// port over a data folder, ready once every worker has answered (each answer names its worker in
// x-tidings-worker), with the CPU its process tree used, stopped with SIGTERM as systemd would.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { processTreeCpuMs } from './process-cpu.ts';

export interface ServeProcess {
  url: string;
  pid: number;
  /** CPU ms the supervisor and its workers used so far (NaN without /proc). */
  cpuMs(): number;
  stop(): Promise<void>;
  /** SIGKILL (a server held by a request does not drain). */
  kill(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
    s.once('error', reject);
  });
}

export async function startServeProcess(
  dataDir: string,
  workers: number,
  env: Record<string, string>,
  root = new URL('..', import.meta.url).pathname,
): Promise<ServeProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [`${root}/bin/tidings.js`, '--data', dataDir, 'serve', '--port', String(port), '--workers', String(workers)],
    {
      env: { ...process.env, TIDINGS_HOST: '127.0.0.1', NODE_NO_WARNINGS: '1', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  let exited = false;
  const exit = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const seen = new Set<string>();
  // A new connection per probe, so the kernel or the supervisor spreads them over the workers.
  for (let i = 0; seen.size < workers && i < 1200 && !exited; i++) {
    try {
      const r = await fetch(`${url}/healthz`, { headers: { connection: 'close' } });
      await r.arrayBuffer();
      seen.add(r.headers.get('x-tidings-worker') ?? 'single');
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (seen.size < workers) {
    child.kill('SIGKILL');
    throw new Error(`tidings serve --workers ${workers}: only ${seen.size} worker(s) answered`);
  }
  return {
    url,
    pid: child.pid!,
    cpuMs: () => processTreeCpuMs(child.pid!),
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
  };
}
