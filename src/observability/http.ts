// Request observability on the one HTTP server: a log line per request at info (method, route
// pattern, status, ms — never the query string, where tokens travel), request metrics, and the
// /metrics endpoint for Prometheus (allowed networks only, as Miniflux's METRICS_ALLOWED_NETWORKS).
import ipaddr from 'ipaddr.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { App } from '../runtime/app.ts';
import { appMetrics, collectProcessMetrics } from './metrics.ts';
import { metricsSource } from './cluster.ts';

/** The path of a request without its query string, cut to a sane length for a log line. */
function pathOf(req: FastifyRequest): string {
  const path = req.url.split('?')[0];
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

function parseNetworks(app: App): [ipaddr.IPv4 | ipaddr.IPv6, number][] {
  return app.config.metricsAllowedNetworks.map((cidr) => {
    try {
      return ipaddr.parseCIDR(cidr.includes('/') ? cidr : `${cidr}/${ipaddr.parse(cidr).kind() === 'ipv4' ? 32 : 128}`);
    } catch {
      throw new Error(`metricsAllowedNetworks: "${cidr}" is not an address or CIDR range (like 10.0.0.0/8)`);
    }
  });
}

function allowed(networks: [ipaddr.IPv4 | ipaddr.IPv6, number][], ip: string): boolean {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return networks.some(([net, bits]) => addr.kind() === net.kind() && addr.match([net, bits] as never));
}

export function installRequestObservability(server: FastifyInstance, app: App): void {
  const m = appMetrics(app);
  const loopWatch = collectProcessMetrics(app);
  // A request may hold the thread (CPU work on untrusted input): the loop watch ticks at full rate
  // from its start, not only from its idle tick's next look.
  server.addHook('onRequest', (_req, _reply, done) => {
    loopWatch.busy();
    done();
  });
  server.addHook('onResponse', async (req, reply) => {
    // Route patterns, not paths: bounded label values (a path would make one series per feed URL).
    const route = req.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    const seconds = reply.elapsedTime / 1000;
    m.httpRequests.inc({ method: req.method, route, status });
    m.httpDuration.observe({ method: req.method, route, status }, seconds);
    req.log.info(
      {
        method: req.method,
        route,
        path: pathOf(req),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip: req.ip,
      },
      'request',
    );
  });

  const networks = parseNetworks(app);
  if (!networks.length) return;
  server.get('/metrics', async (req, reply) => {
    // Through an untrusted proxy every client looks like the proxy (often 127.0.0.1): refuse.
    const proxied =
      !req.ips?.length && (req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined);
    if (proxied || !allowed(networks, req.ip)) {
      return reply
        .code(403)
        .type('text/plain')
        .send(
          `/metrics is not open to ${req.ip}${proxied ? ' (request came through a proxy)' : ''}: see TIDINGS_METRICS_ALLOWED_NETWORKS\n`,
        );
    }
    // A worker of `serve --workers N` answers with the sum over every worker (./cluster.ts).
    const source = metricsSource(app);
    if (source) {
      try {
        const all = await source();
        return reply.type(all.contentType).send(all.text);
      } catch (err) {
        req.log.warn({ err }, "could not gather the workers' metrics");
        // One worker's counters would read as a reset to the scraper: no answer is better.
        return reply
          .code(503)
          .type('text/plain')
          .send(`could not gather the metrics of every worker (${(err as Error).message}): try again\n`);
      }
    }
    return reply.type(m.registry.contentType).send(await m.registry.metrics());
  });
}
