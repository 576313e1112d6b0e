// Regenerates the Architecture table in README.md from the layer table the import-boundary test
// checks (test/layers.ts): `node scripts/architecture-table.ts`. A test fails when the README is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeWithArchitecture } from '../test/layers.ts';

const file = join(import.meta.dirname, '..', 'README.md');
writeFileSync(file, readmeWithArchitecture(readFileSync(file, 'utf8')));
console.log('README.md architecture table updated');
