// CPU time (user + system) of a process and its children, from Linux /proc: on a machine shared
// with other work, "server CPU ms per request" stays meaningful when requests/s do not (they
// follow the share of the cores the scheduler gives us). Returns NaN where /proc is missing.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function childrenOf(pid: number): number[] {
  try {
    const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return tasks ? tasks.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[11] = utime, fields[12] = stime (the 14th and 15th of the whole line)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by one process, all its threads included (/proc/PID/stat counts the whole
 * thread group, threads that already ended too), in 10 ms ticks; NaN once it is gone. A process
 * read until it exits misses what it used after the last reading: for the exact total of processes
 * that ended, see reapedChildrenCpuS.
 */
export function processCpuS(pid: number): number {
  try {
    return cpuMsOf(pid) / 1000;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds (user + system) of this process's children that ended and were reaped (cutime and
 * cstime of /proc/self/stat: the rusage wait4 hands back, what /usr/bin/time reports), each child's
 * whole thread group up to its exit. The difference around a batch of child processes is their
 * whole CPU, provided no other child of this process ends meanwhile.
 */
export function reapedChildrenCpuS(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[13] = cutime, fields[14] = cstime (the 16th and 17th of the whole line)
    return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU ms used so far by `pid` and its live child processes (a supervisor and its workers). */
export function processTreeCpuMs(pid: number): number {
  try {
    return [pid, ...childrenOf(pid)].reduce((sum, p) => sum + cpuMsOf(p), 0);
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU ms used so far by `pid`'s threads and its live child processes' threads, from each thread's
 * /proc/…/schedstat (nanoseconds on the CPU): where a call costs 1-3 ms, the 10 ms ticks of
 * /proc/…/stat are charged to whoever holds the core at the tick, and 30 calls are too few to
 * average that out. Threads that ended between two readings are missed (Node's pool threads live
 * on). NaN where /proc is missing.
 */
export function processTreeRunMs(pid: number): number {
  try {
    let ns = 0;
    for (const p of [pid, ...childrenOf(pid)])
      for (const task of readdirSync(`/proc/${p}/task`)) {
        try {
          ns += Number(readFileSync(`/proc/${p}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
        } catch {} // the thread ended while we read
      }
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds used so far by a local PostgreSQL server (the postmaster, its exited children and its
 * live ones), from /proc: what a refresh costs the database on the same cores. NaN when the
 * server's files are not readable here (a remote server).
 */
export function postgresServerCpuS(dataDirectory: string): number {
  try {
    const postmaster = Number(readFileSync(join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const fields = (pid: string) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    let ticks = 0;
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const f = fields(pid);
        if (Number(pid) === postmaster) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
        else if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
      } catch {}
    }
    return ticks / 100;
  } catch {
    return Number.NaN;
  }
}
