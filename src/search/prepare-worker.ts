// Worker thread body of the search index's batch preparation (prepare-thread.ts): a batch's items
// in, each one's passages and term counts out (prepare.ts), or the error's message.
import { parentPort } from 'node:worker_threads';
import type { SearchItemSource } from '../store/repositories.ts';
import { prepareItem } from './prepare.ts';

// Imported on the main thread too (no parentPort: nothing to do): see feeds/parse-pool/parse-worker.ts.
parentPort?.on('message', (sources: SearchItemSource[]) => {
  try {
    parentPort!.postMessage({ items: sources.map(prepareItem) });
  } catch (e) {
    parentPort!.postMessage({ error: (e as Error)?.message ?? String(e) });
  }
});
