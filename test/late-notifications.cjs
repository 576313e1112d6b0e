// A sweep tool for tests of the "another process changes something, this one sees it" shape on
// PostgreSQL: preloaded, it delivers every LISTEN/NOTIFY notification of this process (and of the
// processes it starts) TIDINGS_LATE_NOTIFY_MS late, or never with "never". On a loaded machine a
// notification can be read after the next request: a test that checks at once instead of within
// the notification's delivery (src/store/testing.ts, seenAfterOtherCommit) fails with it late,
// and a test of the promise fails with it never delivered.
//
//   NODE_OPTIONS=--require=./test/late-notifications.cjs TIDINGS_LATE_NOTIFY_MS=300 \
//     TIDINGS_TEST_DATABASE_URL=postgres://… node test/run-suite.ts FILES…
const pg = require('pg');

const late = process.env.TIDINGS_LATE_NOTIFY_MS;
const emit = pg.Client.prototype.emit;
pg.Client.prototype.emit = function (event, ...args) {
  if (event !== 'notification' || !late) return emit.call(this, event, ...args);
  if (late !== 'never') setTimeout(() => emit.call(this, event, ...args), Number(late)).unref();
  return true;
};
