import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadConfig, ConfigError, OPTIONS } from './config.ts';
import { readmeWithTable } from '../../scripts/config-table.ts';

test('defaults, then file, then environment, then flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: 9001, fetchConcurrency: 3 }));
  const c = loadConfig({ env: { TIDINGS_DATA: dir, TIDINGS_PORT: '9002' }, flags: {} });
  assert.equal(c.port, 9002);
  assert.equal(c.fetchConcurrency, 3);
  assert.equal(c.allowPrivateNetworks, false);
  assert.equal(loadConfig({ env: { TIDINGS_DATA: dir }, flags: { port: '9003' } }).port, 9003);
});

test('bad values are refused with a message naming the option', () => {
  assert.throws(
    () => loadConfig({ env: { TIDINGS_PORT: 'eighty' } }),
    (e: Error) => e instanceof ConfigError && /TIDINGS_PORT.*whole number/.test(e.message),
  );
  assert.throws(() => loadConfig({ env: { TIDINGS_ALLOW_PRIVATE_NETWORKS: 'maybe' } }), /true or false/);
  assert.throws(() => loadConfig({ env: { TIDINGS_PORT: '70000' } }), /port must be/);
  assert.throws(() => loadConfig({ flags: { 'no-such': '1' } }), /unknown option "--no-such"/);
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  writeFileSync(join(dir, 'config.json'), '{"prot": 1}');
  assert.throws(() => loadConfig({ env: { TIDINGS_DATA: dir } }), /unknown option "prot"/);
});

test('every option has a distinct TIDINGS_ environment variable', () => {
  const envs = Object.values(OPTIONS).map((o) => o.env);
  assert.equal(new Set(envs).size, envs.length);
  for (const e of envs) assert.match(e, /^TIDINGS_[A-Z0-9_]+$/);
});

test('the README configuration table is generated from the options (run node scripts/config-table.ts)', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  assert.equal(readme, readmeWithTable(readme), 'README.md table is stale: run `node scripts/config-table.ts`');
});
