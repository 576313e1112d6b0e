// Reading a benchmarked server's log (its stderr, one JSON object a line) for the line that says it
// is ready, without the reading costing the run anything afterwards.
//
// The benches used to keep one growing string of everything the server had logged and split all
// of it again on every chunk, for as long as the server ran. At info the server logs a line per
// request, so under load that string reached tens of MB and the bench process spent a whole core
// re-splitting it: on 2 cores it competed with the server it measured (`bench:reader --workers 2`
// measured 1.14x where a server started by hand gave 1.6x), and a full pipe would make the
// server's synchronous log writes wait. Here each chunk is split once, only the unfinished last
// line is carried over, and once the wanted line has come the stream is only drained, keeping a
// short tail for the error message if the server dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';

const TAIL_CHARS = 4000;

/**
 * Resolves with `match(line)` for the first line of the child's stdout or stderr (those that are
 * pipes) for which it returns a value; rejects if the child exits first, with the log's tail.
 */
export function waitForLogLine<T>(child: ChildProcess, match: (line: string) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    let tail = '';
    let found = false;
    const streams = [child.stdout, child.stderr].filter((s): s is Readable => s != null);
    const carry = new Map<Readable, string>();
    for (const stream of streams) {
      stream.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        tail = (tail + text).slice(-TAIL_CHARS);
        if (found) return;
        const lines = ((carry.get(stream) ?? '') + text).split('\n');
        carry.set(stream, lines.pop() ?? '');
        for (const line of lines) {
          const value = match(line);
          if (value !== undefined) {
            found = true;
            carry.clear();
            return resolve(value);
          }
        }
      });
    }
    child.once('exit', (code) => {
      if (!found) reject(new Error(`server exited with ${code}: ${tail}`));
    });
  });
}

/** The `url` of the first JSON log line that has one (and, if given, the message `msg`). */
export function waitForServingUrl(child: ChildProcess, msg?: string): Promise<string> {
  return waitForLogLine(child, (line) => {
    if (!line.startsWith('{')) return undefined;
    try {
      const j = JSON.parse(line) as { url?: unknown; msg?: unknown };
      return typeof j.url === 'string' && (msg === undefined || j.msg === msg) ? j.url : undefined;
    } catch {
      return undefined;
    }
  });
}

/**
 * `tidings serve` of the checkout at root on the data folder, one process, on a free port of
 * 127.0.0.1, without its scheduler, logging JSON to a pipe; resolves once it serves, with its URL.
 * The child is pushed to `children` before the wait, so a caller's cleanup stops it even if it dies.
 */
export async function serveCheckout(
  root: string,
  data: string,
  children: ChildProcess[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(root, 'bin/tidings.js'), 'serve', '--workers', '1', '--port', '0', '--host', '127.0.0.1'],
    {
      env: {
        ...process.env,
        TIDINGS_DATA: data,
        TIDINGS_SCHEDULER: 'false',
        TIDINGS_LOG_FORMAT: 'json',
        NODE_NO_WARNINGS: '1',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  return { child, url: await waitForServingUrl(child, 'tidings is serving') };
}

/** A checkout to serve and its data folder, from `--tidings LABEL=[CHECKOUT:]DATA` (CHECKOUT: this one). */
export interface CheckoutSpec {
  label: string;
  root: string;
  data: string;
}

/** Every `--tidings` value of argv; a spec without a label or a data folder is refused by the caller. */
export function checkoutSpecs(argv: readonly string[], thisRoot: string): CheckoutSpec[] {
  return argv
    .flatMap((a, i) => (argv[i - 1] === '--tidings' ? [a] : []))
    .map((spec) => {
      const eq = spec.indexOf('=');
      const rest = spec.slice(eq + 1);
      const colon = rest.lastIndexOf(':');
      return {
        label: spec.slice(0, eq),
        root: colon > 0 ? resolve(rest.slice(0, colon)) : thisRoot,
        data: colon > 0 ? rest.slice(colon + 1) : rest,
      };
    });
}
