// Who holds a claim (an async job, a feed being refreshed) in a database shared by several
// processes, perhaps on several machines: host name, process id and a random part, so a restarted
// process with a recycled pid is someone else. One per App: two Apps in one test process are two
// claimers, as two processes would be.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { App } from './app.ts';
import { perApp } from './per-app.ts';

export const claimOwner = perApp(
  (): string => `${hostname().slice(0, 64)}:${process.pid}:${randomBytes(4).toString('hex')}`,
);

/** The lease of a claim and how often it is renewed (a third of it: two renewals may fail in a row). */
export function claimTiming(app: App): { leaseMs: number; renewMs: number } {
  const leaseMs = app.config.claimLeaseSeconds * 1000;
  return { leaseMs, renewMs: Math.max(100, Math.floor(leaseMs / 3)) };
}
