// Commands that only print (`tidings --version`, `--help`, a mistyped command) load no command's
// module, no configuration and no App: they took 0.9 s when they loaded the whole CLI
// (BENCHMARKS.md, "CLI start"). Checked by the modules a real `tidings` process loads, not by time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Help } from 'commander';
import { ROOT } from './helpers.ts';
import { buildProgram, helpProgram } from '../src/cli/main.ts';
import { COMMAND_INDEX } from '../src/cli/command-index.ts';

/** Runs `tidings <args>`; its output and the files of this checkout it loaded (relative paths). */
function loadedBy(args: string[]): { status: number | null; stdout: string; stderr: string; modules: string[] } {
  const log = join(mkdtempSync(join(tmpdir(), 'tidings-cli-start-')), 'loaded.txt');
  const hook = `data:text/javascript,${encodeURIComponent(
    `import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs'; registerHooks({ load(url, ctx, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, ctx); } });`,
  )}`;
  const r = spawnSync(process.execPath, ['--import', hook, join(ROOT, 'bin/tidings.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  const root = `file://${ROOT}/`;
  const modules = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter((u) => u.startsWith(root))
    .map((u) => u.slice(root.length));
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, modules };
}

/** Modules of the app proper: a command, the App, the configuration, the logger, any domain. */
const appModules = (modules: string[]) =>
  modules.filter(
    (m) =>
      m.startsWith('src/') &&
      !['src/cli/main.ts', 'src/cli/command-index.ts', 'src/cli/context.ts', 'src/config/install.ts'].includes(m) &&
      // context.ts names the store's error types (no backend, no driver).
      !/^src\/store\/(open-store|errors|change-signal|backup-error)\.ts$/.test(m),
  );

test('tidings --version, --help and a mistyped command load no command, App, configuration or domain module', () => {
  const version = loadedBy(['--version']);
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  assert.ok(version.modules.includes('src/cli/main.ts'), version.modules.join('\n'));
  assert.deepEqual(appModules(version.modules), []);
  assert.ok(!version.modules.some((m) => /node_modules\/(pino|zod|fastify)\//.test(m)), version.modules.join('\n'));

  const help = loadedBy(['--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^ {2}ask \[options\] <question\.\.\.> +answer a question/m);
  assert.deepEqual(appModules(help.modules), []);

  const typo = loadedBy(['feedz']);
  assert.equal(typo.status, 2);
  assert.match(typo.stderr, /unknown command 'feedz'[\s\S]*Did you mean feed\?/);
  assert.deepEqual(appModules(typo.modules), []);

  // A command that runs loads its module (and `help <command>` that command's).
  const commandHelp = loadedBy(['help', 'ask']);
  assert.equal(commandHelp.status, 0, commandHelp.stderr);
  assert.match(commandHelp.stdout, /Usage: tidings ask \[options\] <question\.\.\.>/);
  assert.ok(commandHelp.modules.includes('src/cli/commands/ask.ts'), commandHelp.modules.join('\n'));
});

test('the help printed from the command index is the help of the program with every command', async () => {
  const ctx = {
    config: () => assert.fail('not run'),
    app: async () => assert.fail('not run'),
    out: () => undefined,
  };
  const full = await buildProgram(ctx);
  const help = new Help();
  const actual = full.commands.map((c) => ({
    name: c.name(),
    term: help.subcommandTerm(c),
    description: help.subcommandDescription(c),
  }));
  assert.deepEqual(
    COMMAND_INDEX,
    actual,
    `src/cli/command-index.ts must list what the commands register:\n${JSON.stringify(actual, null, 2)}`,
  );
  const text = (p: import('commander').Command) => p.helpInformation({ error: false });
  assert.equal(text(helpProgram()), text(full));
});
