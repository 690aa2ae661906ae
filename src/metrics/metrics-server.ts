import http from 'node:http';
import type { Metrics } from './metrics.js';

/**
 * The metrics listener: `GET /metrics` in the Prometheus text format on its own port (METRICS_PORT), apart from the
 * sites' origins, so that nothing a school's visitors can reach shows the numbers. Anything else is a 404.
 */
export function createMetricsServer(metrics: Metrics): http.Server {
  return http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: this listener serves GET /metrics only.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
}
