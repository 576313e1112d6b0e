// A pull started from the web app's admin settings: it runs in the background of the worker that
// took the request, and its progress goes to the store's download.json, so the page's polls see
// it whichever worker answers them (and a `tidings model pull` in a terminal sees the same lock).
// The App's close stops it; the .part stays and the next pull resumes it.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import { pullModel } from './pull.ts';
import type { StoredModel } from './store.ts';

class ModelDownloads {
  private readonly app: App;
  private running: { stop: AbortController; done: Promise<StoredModel | undefined> } | undefined;

  constructor(app: App) {
    this.app = app;
    app.onClose(async () => {
      const r = this.running;
      if (!r) return;
      r.stop.abort();
      await r.done;
    });
  }

  /**
   * Starts pulling `ref`; resolves once the download holds the store's lock (the answer can then
   * say "started"), rejects with the ModelError of a refusal before that (bad reference, already
   * present, another download running). What happens later is in readProgress().
   */
  start(ref: string, sha256?: string): Promise<void> {
    return new Promise((started, refused) => {
      // Only a download that holds the lock is ours to stop when the App closes. (onStarted runs
      // before pullModel returns its promise, hence the entry filled in afterwards.)
      const entry: { stop: AbortController; done: Promise<StoredModel | undefined> } = {
        stop: new AbortController(),
        done: Promise.resolve(undefined),
      };
      let began = false;
      entry.done = pullModel(ref, this.app.config, {
        sha256,
        signal: entry.stop.signal,
        onStarted: () => {
          began = true;
          this.running = entry;
          started();
        },
      }).then(
        (m) => {
          this.app.log.info(
            { model: m.name, bytes: m.sizeBytes, sha256: m.sha256 },
            'model pulled from the admin settings',
          );
          return m;
        },
        (e: Error) => {
          if (!began) refused(e);
          else this.app.log.warn({ model: ref, err: e.message }, 'model pull from the admin settings failed');
          return undefined;
        },
      );
      void entry.done.finally(() => {
        if (this.running === entry) this.running = undefined;
      });
    });
  }
}

export const modelDownloads = perApp((app) => new ModelDownloads(app));
