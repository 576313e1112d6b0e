// `tidings serve` as a real child process, for tests that need the server the way an operator runs it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './helpers.ts';

export interface Served {
  url: string;
  dataDir: string;
  lines: string[];
  stop(): Promise<number>;
}

/** Starts `tidings <args>` and resolves once it logs "tidings is serving". */
export function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/tidings.js'), ...args], {
      env: { ...process.env, TIDINGS_LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buf = '';
    let done = false;
    const exited = new Promise<number>((r) => p.on('close', (code) => r(code ?? -1)));
    p.stderr.on('data', (d) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        let rec: { msg?: string; url?: string; dataDir?: string } = {};
        try {
          rec = JSON.parse(line);
        } catch {
          /* not JSON: kept in lines for the failure message */
        }
        if (!done && rec.msg === 'tidings is serving') {
          done = true;
          resolve({
            url: rec.url!,
            dataDir: rec.dataDir!,
            lines,
            stop: () => {
              p.kill('SIGTERM');
              return exited;
            },
          });
        }
      }
    });
    void exited.then((code) => {
      if (!done) reject(new Error(`serve exited with ${code} before serving:\n${lines.join('\n')}${buf}`));
    });
  });
}
