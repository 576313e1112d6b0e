// A throwaway Redis for tests: Debian's redis-server on a free port, in a temp folder, no
// persistence; stopped and deleted by stop(). Tests skip with redisUnavailable()'s message when
// redis-server is not installed (apt-get install -y redis-server).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const binary = (): string => spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();

/** Why Redis tests cannot run here, or undefined when they can. */
export function redisUnavailable(): string | undefined {
  return binary() ? undefined : 'skipped: redis-server is not installed (apt-get install -y redis-server)';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' }, () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
  /** SIGSTOP: the server keeps its connections open and answers nothing (a hung Redis). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
}

export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-redis-'));
  const port = await freePort();
  const p = spawn(
    binary(),
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  for (let i = 0; i < 100 && !(await accepts(port)); i++) await new Promise((r) => setTimeout(r, 50));
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => p.kill('SIGSTOP'),
    resume: () => p.kill('SIGCONT'),
    async stop() {
      p.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
