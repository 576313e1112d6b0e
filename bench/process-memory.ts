// Memory of a process from Linux /proc/<pid>/status, in MB: what the memory benches and the
// FreshRSS comparison report (resident, its anonymous and file-backed parts, and the peak).
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  rss: number;
  anon: number;
  file: number;
  peak: number;
}

export function memOf(pid: number): ProcessMemory {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) / 1024;
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile'), peak: mb('VmHWM') };
}
