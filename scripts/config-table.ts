// Regenerates the configuration table in README.md from src/config/config.ts (the one source of
// truth): `node scripts/config-table.ts`. A test fails when the README is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configTableMarkdown } from '../src/config/config.ts';

export function readmeWithTable(readme: string): string {
  const start = '<!-- config-table:start -->',
    end = '<!-- config-table:end -->';
  const i = readme.indexOf(start),
    j = readme.indexOf(end);
  if (i < 0 || j < i) throw new Error('README.md lacks the config-table markers');
  return readme.slice(0, i + start.length) + '\n' + configTableMarkdown() + '\n' + readme.slice(j);
}

if (import.meta.main) {
  const file = join(import.meta.dirname, '..', 'README.md');
  writeFileSync(file, readmeWithTable(readFileSync(file, 'utf8')));
  console.log('README.md configuration table updated');
}
