// Personal-server defaults: the operator's (admin) keys get the beta features without approval,
// costs appear only when prices are configured; and the user commands an operator needs (remove,
// admin, a hidden password prompt on a terminal).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fixture, post } from './chat-api-helpers.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { ROOT, runCli, tempDataDir } from './helpers.ts';

const ask = (extra: Record<string, unknown> = {}) => ({
  model: 'sonar',
  messages: [{ role: 'user', content: 'q' }],
  ...extra,
});

test("an admin's API keys get the beta features without approval; other users' keys still need it", async () => {
  const f = await fixture({ priceTable: 'none' });
  try {
    const body = ask({ search_domain_filter: ['nasa.gov'], return_images: true });
    assert.equal((await post(f, '/chat/completions', body)).status, 403, 'alice is not an admin yet');
    await f.app.users.setAdmin(f.userId, true);
    const r = await post(f, '/chat/completions', body);
    assert.equal(r.status, 200, r.text);
    const bob = await f.app.users.create('bob', 'x', null);
    const { key } = await createApiKey(chatStore(f.app).keys, bob.id, 'bob', 0);
    assert.equal((await post({ url: f.url, key }, '/chat/completions', body)).status, 403);
  } finally {
    await f.close();
  }
});

test('without configured prices usage keeps tokens but costs are zero and not shown; the Sonar preset brings them back', async () => {
  const free = await fixture({ priceTable: 'none' });
  try {
    const r = await post(free, '/chat/completions', ask());
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.usage.prompt_tokens > 0);
    assert.equal(r.json.usage.cost.total_cost, 0);
    const env = { TIDINGS_LOG_LEVEL: 'silent', TIDINGS_PRICE_TABLE: 'none' };
    const text = await runCli(['--data', free.dataDir, 'usage'], env);
    assert.equal(text.code, 0, text.stderr);
    assert.doesNotMatch(text.stdout, /COST_USD/);
    assert.match(text.stdout, /no costs shown: no prices configured; TIDINGS_PRICE_TABLE=sonar/);
    const json = JSON.parse((await runCli(['--data', free.dataDir, 'usage', '--json'], env)).stdout);
    assert.ok(json[0].promptTokens > 0);
    assert.equal(json[0].cost, null);
  } finally {
    await free.close();
  }
  const sonar = await fixture({ priceTable: 'sonar' });
  try {
    const r = await post(sonar, '/chat/completions', ask());
    assert.ok(r.json.usage.cost.total_cost > 0);
    const text = await runCli(['--data', sonar.dataDir, 'usage'], {
      TIDINGS_LOG_LEVEL: 'silent',
      TIDINGS_PRICE_TABLE: 'sonar',
    });
    assert.match(text.stdout, /COST_USD/);
  } finally {
    await sonar.close();
  }
});

test('the first user is the admin; user admin and user remove --yes', { timeout: 300_000 }, async () => {
  const data = tempDataDir();
  const first = await runCli(['--data', data, 'user', 'add', 'alice', '--password', 'correct horse']);
  assert.match(first.stdout, /created user alice \(id 1\), an admin/);
  assert.doesNotMatch(
    (await runCli(['--data', data, 'user', 'add', 'bob', '--password', 'correct horse'])).stdout,
    /admin/,
  );
  assert.equal((await runCli(['--data', data, 'user', 'admin', 'bob'])).code, 0);
  const list = await runCli(['--data', data, 'user', 'list']);
  assert.equal(list.stdout, 'ID\tUSERNAME\tEMAIL\tADMIN\n1\talice\t\tyes\n2\tbob\t\tyes\n');
  const unconfirmed = await runCli(['--data', data, 'user', 'remove', 'bob']);
  assert.equal(unconfirmed.code, 2);
  assert.match(unconfirmed.stderr, /--yes/);
  assert.equal((await runCli(['--data', data, 'user', 'remove', 'bob', '--yes'])).code, 0);
  assert.deepEqual(
    JSON.parse((await runCli(['--data', data, 'user', 'list', '--json'])).stdout).map(
      (u: { username: string }) => u.username,
    ),
    ['alice'],
  );
  const missing = await runCli(['--data', data, 'user', 'remove', 'bob', '--yes']);
  assert.equal(missing.code, 1);
});

const hasScript = spawnSync('script', ['--version']).status === 0;

test('user add without --password asks twice on a terminal, without echo', {
  skip: hasScript ? false : 'skipped: util-linux script (a pseudo-terminal) is not installed',
}, async () => {
  const data = tempDataDir();
  const cmd = `${process.execPath} ${join(ROOT, 'bin/tidings.js')} --data ${data} user add carol`;
  // `script` gives the command a pseudo-terminal; each password is typed once its prompt is shown
  // (not after a fixed pause: a loaded machine can take seconds to start the CLI).
  const r = await typeAtPrompts(
    ['script', '-qec', cmd, '/dev/null'],
    [/Password: $/, /Repeat the password: $/],
    'correct horse\r',
  );
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /Password: /);
  assert.match(r.stdout, /Repeat the password: /);
  assert.match(r.stdout, /created user carol/);
  // Typed before the prompt (a slow start), the terminal itself echoes; from the prompt on, nothing must.
  assert.doesNotMatch(r.stdout.slice(r.stdout.indexOf('Password: ')), /correct horse/, 'the password was echoed');
  const notty = await runCli(['--data', data, 'user', 'add', 'dave'], { TIDINGS_PASSWORD: '' });
  assert.equal(notty.code, 2);
  assert.match(notty.stderr, /pass --password or set TIDINGS_PASSWORD/);
});

/** Runs a command and types `answer` each time its output ends with the next prompt; resolves on exit. */
function typeAtPrompts(
  argv: string[],
  prompts: RegExp[],
  answer: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, TIDINGS_PASSWORD: '' } });
    let stdout = '',
      stderr = '',
      next = 0;
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no exit in 60 s; output so far: ${stdout}${stderr}`));
    }, 60_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (next < prompts.length && prompts[next].test(stdout)) {
        next++;
        child.stdin.write(answer);
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
