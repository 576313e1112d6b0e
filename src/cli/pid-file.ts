// <data>/serve.pid: which process serves a data folder (the supervisor of `serve --workers N`, or
// the single server process), so `tidings restore` can refuse to swap the database under it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PID_FILE = 'serve.pid';

/** Leaves <data>/serve.pid while serving, so `tidings restore` can refuse to swap the database under it. */
export function markServing(dataDir: string): () => void {
  const file = join(dataDir, PID_FILE);
  // With all data in PostgreSQL nothing else creates the data folder (a fresh machine running
  // `TIDINGS_DATABASE_URL=… npm start`): create it, or the server stopped on ENOENT here.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${process.pid}\n`);
  return () => rmSync(file, { force: true });
}

/** The pid of a server running on this data folder, if any (a stale file of a crashed one is ignored). */
export function runningServerPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, PID_FILE), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
