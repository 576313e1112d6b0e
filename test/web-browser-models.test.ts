// Admin > Models in real Chromium (Debian's package, driven by playwright-core): with no model the
// page says answers are quotes; an admin downloads a model from a local stand-in for Hugging Face
// and watches the progress bar move; the model then shows as in use, with what the runtime
// reports (backend, GPU layers, memory); a bad reference is refused in the form with the server's
// words; Remove deletes the file. axe-core checks the screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import {
  browserWithFirstAccount,
  SCREENSHOT_DIR,
  SKIP_NO_CHROMIUM,
  startWebHarness,
  type WebHarness,
} from './web-browser-harness.ts';
import { ggufBytes, startModelHub, type ModelHub } from './model-hub.ts';
import { setModelRuntimeStatusSource } from '../src/models/index.ts';

const skip = SKIP_NO_CHROMIUM;
let h: WebHarness;
let hub: ModelHub;
let browser: Browser;
let page: Page;
let dir: string;

before(async () => {
  if (skip) return;
  hub = await startModelHub();
  dir = mkdtempSync(join(tmpdir(), 'tidings-browser-models-'));
  h = await startWebHarness({ modelsDir: dir, modelsHubUrl: hub.base });
  ({ browser, page } = await browserWithFirstAccount(h, { bypassCSP: true }));
});

after(async () => {
  if (skip) return;
  setModelRuntimeStatusSource(undefined);
  await browser?.close();
  await h?.close();
  await hub?.close();
});

test('Admin > Models: download with a progress bar, the model in use with its hardware, refusals, remove', {
  skip,
}, async () => {
  await page.goto(h.url + '/#/admin');
  await page.locator('#model-in-use').filter({ hasText: 'No model: answers are quotes from your articles' }).waitFor();
  const row = page.locator('#model-table tr').filter({ hasText: 'qwen3-1.7b' });
  assert.match((await row.textContent())!, /2\.2 GB.*3\.0 GB.*32k.*Apache-2\.0.*yes/);

  // A catalogue model, served slowly by the local hub under the catalogue's repository and file.
  hub.files.set('Qwen_Qwen3-1.7B-Q8_0.gguf', { body: ggufBytes(600_000), chunkDelayMs: 40 });
  await page.getByRole('button', { name: 'Download qwen3-1.7b' }).click();
  await page
    .locator('#model-download')
    .filter({ hasText: /Downloading qwen3-1\.7b: .* of .*\(\d+ %\)/ })
    .waitFor();
  const values: number[] = [];
  for (let i = 0; i < 200; i++) {
    const v = await page
      .locator('#model-progress')
      .getAttribute('value')
      .catch(() => null);
    if (v !== null) values.push(Number(v));
    if (await page.locator('#model-download').filter({ hasText: 'Downloaded qwen3-1.7b.' }).count()) break;
    await page.waitForTimeout(100);
  }
  await page.locator('#model-download').filter({ hasText: 'Downloaded qwen3-1.7b.' }).waitFor();
  assert.ok(new Set(values.filter((v) => v > 0 && v < 600_000)).size >= 1, `the bar moved: ${values.join(',')}`);
  await page.locator('#model-in-use').filter({ hasText: 'Answers are written by qwen3-1.7b' }).waitFor();
  assert.match((await row.textContent())!, /in use/);
  await page.screenshot({ path: join(SCREENSHOT_DIR, '30-admin-models.png'), fullPage: true });

  // What the runtime reports shows on the next load.
  setModelRuntimeStatusSource(async () => ({
    engine: 'local',
    state: 'ready',
    backend: 'vulkan',
    gpuLayers: 28,
    threads: 2,
    contextTokens: 8192,
    memoryBytes: 3_100_000_000,
  }));
  await page.reload();
  await page
    .locator('#model-runtime')
    .filter({
      hasText:
        'Running on the GPU (vulkan), 28 layers on the GPU, 2 threads, 8192 tokens of context, 3.1 GB of memory.',
    })
    .waitFor();

  // The server's refusal shows in the form.
  await page.getByLabel(/Hugging Face file/).fill('hf:owner/repo');
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  await page.locator('#pullmodel [role=alert]').filter({ hasText: 'is not an hf: reference' }).waitFor();

  const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () =>
    (
      globalThis as unknown as {
        axe: { run: (o: unknown) => Promise<{ violations: { id: string; impact: string; help: string }[] }> };
      }
    ).axe.run({ resultTypes: ['violations'] }),
  );
  assert.deepEqual(
    result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`),
    [],
  );

  page.once('dialog', (d) => d.accept());
  await page.getByRole('button', { name: 'Remove qwen3-1.7b' }).click();
  await page.locator('#model-in-use').filter({ hasText: 'No model' }).waitFor();
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.gguf')),
    [],
  );
});
