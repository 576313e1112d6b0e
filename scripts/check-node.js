// Fails early with an actionable message: the code runs TypeScript directly through
// Node's built-in type stripping and uses node:sqlite, both of which need Node 24.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  console.error(
    `tidings needs Node.js 24 or later; this is ${process.version}. ` +
      'Install it with `npm install --prefix ~/.cache/node24 node@24` and put ' +
      '~/.cache/node24/node_modules/node/bin first on PATH.',
  );
  process.exit(1);
}
