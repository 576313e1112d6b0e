// prepack, after tsc: copies the files under src/ that the code reads at run time and tsc does not
// emit (anything but TypeScript and docs, e.g. a web front-end's public/ folder) into dist/src/,
// so the installed package finds them where the compiled code looks (import.meta.dirname).
import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** Run-time assets under src/: not TypeScript, not Markdown, not test fixtures. */
export function runtimeAssets(dir = join(ROOT, 'src')): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== '__fixtures__' && e.name !== 'testing') out.push(...runtimeAssets(p));
      continue;
    }
    if (!/\.(ts|md)$/.test(e.name)) out.push(relative(ROOT, p));
  }
  return out;
}

if (import.meta.main) {
  const assets = runtimeAssets();
  for (const a of assets) cpSync(join(ROOT, a), join(ROOT, 'dist', a));
  console.log(`copied ${assets.length} run-time asset(s) into dist/`);
}
