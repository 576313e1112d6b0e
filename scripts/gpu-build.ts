// `npm run gpu -- cuda|vulkan`: puts node-llama-cpp's prebuilt GPU build for this platform in
// place of the stand-in package.json's `overrides` installs (so a plain `npm install` does not
// download ~610 MB of CUDA and Vulkan builds every machine without that GPU would carry). It fetches
// the build with `npm pack` from the registry npm uses, unpacks it into node_modules, and checks
// that the runtime now loads it. Run it again after an `npm install`, which puts the stand-in back.
// (Installed as a package, `npm install tidings`, npm ignores `overrides`: the GPU builds come
// with it.) Metal on Apple silicon is part of the default macOS build.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KINDS: Record<string, string[]> = { cuda: ['cuda', 'cuda-ext'], vulkan: ['vulkan'] };
const root = join(import.meta.dirname, '..');
const kind = process.argv[2];
if (!kind || !KINDS[kind]) {
  console.error('usage: npm run gpu -- cuda|vulkan   (Metal on Apple silicon needs nothing)');
  process.exit(2);
}
const platform = process.platform === 'win32' ? 'win' : process.platform === 'linux' ? 'linux' : undefined;
if (!platform || process.arch !== 'x64') {
  console.error(
    `node-llama-cpp ships ${kind} builds for Linux and Windows on x64 only (this is ${process.platform}-${process.arch})`,
  );
  process.exit(2);
}
const version = JSON.parse(readFileSync(join(root, 'node_modules/node-llama-cpp/package.json'), 'utf8')).version;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
for (const part of KINDS[kind]) {
  const name = `@node-llama-cpp/${platform}-x64-${part}`;
  const tmp = mkdtempSync(join(tmpdir(), 'tidings-gpu-'));
  console.log(`fetching ${name}@${version} …`);
  execFileSync(npm, ['pack', `${name}@${version}`, '--pack-destination', tmp, '--silent'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    shell: process.platform === 'win32',
  });
  const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${name}@${version} wrote no tarball`);
  const dest = join(root, 'node_modules', name);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', dest, '--strip-components=1']);
  rmSync(tmp, { recursive: true, force: true });
}
const { getLlama } = await import('node-llama-cpp');
try {
  const llama = await getLlama({ gpu: kind as 'cuda' | 'vulkan', build: 'never', progressLogs: false });
  const vram = await llama.getVramState();
  console.log(`the ${kind} build loads: GPU memory ${Math.round(vram.total / 1e9)} GB. Restart tidings to use it.`);
  await llama.dispose();
} catch (e) {
  console.error(
    `the ${kind} build is installed but does not load here (${(e as Error).message}): check the GPU driver${kind === 'cuda' ? ' and the CUDA runtime' : ''}`,
  );
  process.exit(1);
}
