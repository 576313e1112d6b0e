// Index maintenance that runs between event-loop turns while the process serves (a rebuild after
// an upgrade, a postings compaction): one bounded step per turn, so requests and fetches go on.
// A failed step is logged and retried later; every step is its own transaction, so a failure or
// a stop loses nothing but the step.
import type { App } from '../runtime/app.ts';

export interface JobSteps {
  /** What the log calls the job ("rebuilding the search index"). */
  readonly name: string;
  /** Does one bounded piece of work; true when the job is finished. */
  step(): Promise<boolean>;
  /** Progress for the log, asked every ten seconds or so. */
  progress(): Record<string, number>;
}

const RETRY_MS = 5000;
const REPORT_MS = 10_000;

export class BackgroundJob {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private done = false;
  private lastReport = 0;
  private readonly app: App;
  private readonly steps: JobSteps;

  constructor(app: App, steps: JobSteps) {
    this.app = app;
    this.steps = steps;
  }

  get running(): boolean {
    return !this.stopped && !this.done;
  }

  start(): this {
    this.lastReport = Date.now();
    this.app.log.info(`${this.steps.name} in the background`);
    this.schedule(0);
    return this;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.tick(), delayMs).unref();
  }

  private async tick(): Promise<void> {
    try {
      this.done = await this.steps.step();
    } catch (err) {
      this.app.log.error({ err }, `${this.steps.name} failed; retrying`);
      this.schedule(RETRY_MS);
      return;
    }
    if (this.done) {
      this.app.log.info(this.steps.progress(), `${this.steps.name}: done`);
      return;
    }
    if (Date.now() - this.lastReport > REPORT_MS) {
      this.lastReport = Date.now();
      this.app.log.info(this.steps.progress(), this.steps.name);
    }
    this.schedule(0);
  }
}
