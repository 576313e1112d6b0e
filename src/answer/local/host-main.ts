// The model host process (forked by the supervisor of `serve --workers N`, ./host.ts): loads the
// model once, serves it on a Unix socket, reports `ready` or `failed` to its parent, and exits
// when told to (SIGTERM) or when its parent goes away.
import { createLogger, type LogFormat } from '../../log/logger.ts';
import { LocalModelRuntime, type LocalModelSettings } from './runtime.ts';
import { MODEL_HOST_SETTINGS_ENV, serveModel, type HostMessage } from './host.ts';
import { startupLine } from './startup-line.ts';

const { settings, socket, logLevel, logFormat } = JSON.parse(process.env[MODEL_HOST_SETTINGS_ENV] ?? '{}') as {
  settings: LocalModelSettings;
  socket: string;
  logLevel: string;
  logFormat: string;
};
const log = createLogger(logLevel, logFormat as LogFormat).child({ component: 'model-host' });
const tell = (m: HostMessage) => process.send?.(m);

try {
  const runtime = await LocalModelRuntime.load(settings);
  const server = await serveModel(runtime, socket);
  const status = await runtime.status();
  log.info(startupLine(status), 'local model loaded (one copy for every worker)');
  tell({ type: 'ready', status });
  const stop = () => {
    server.close();
    void runtime.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', () => {});
  // The supervisor is gone (killed with -9): nothing will call us any more.
  process.once('disconnect', stop);
} catch (e) {
  tell({ type: 'failed', error: (e as Error).message });
  process.exitCode = 1;
  process.disconnect?.();
}
