// Prints the conformance breakdown per category, the unmapped keys, and (with --failures) each failure.
//   node bench/feeds-conformance.ts [--failures] [category-prefix]
import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatBreakdown, runConformance } from '../src/feeds/parser/conformance/run-conformance.ts';

const dir = join(resolve(fileURLToPath(import.meta.url), '../..'), '../shared/corpus/feeds/conformance');
if (!existsSync(dir)) {
  console.error(`conformance suite not found at ${dir}`);
  process.exit(1);
}
const summary = runConformance(dir);
console.log(formatBreakdown(summary));
if (process.argv.includes('--failures')) {
  const prefix = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? '';
  console.log('\nfailures:');
  for (const r of summary.results)
    if (r.status === 'fail' && r.file.startsWith(prefix)) console.log(`  ${r.file}: ${r.expect}`);
}
