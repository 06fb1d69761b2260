/**
 * The HTTP endpoint of `gatehouse watch` (`--metrics-addr`): `GET /metrics` (Prometheus text
 * format) and `GET /healthz` (200 or 503 with a JSON body: health.ts). Anything else is 404; a
 * method other than GET or HEAD is 405. Plain node:http: two read-only routes need no framework.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CliError } from '../errors.js';
import type { Health } from './health.js';
import type { WatchMetrics } from './metrics.js';
import type { ListenAddress } from './settings.js';

export interface MetricsServer {
  /** `http://host:port`, with the port actually bound (port 0 chooses a free one). */
  url: string;
  close(): Promise<void>;
}

export async function serveMetrics(address: ListenAddress, metrics: WatchMetrics, health: Health): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    void answer(request, response, metrics, health).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('internal error\n');
    });
  });
  await listen(server, address);
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : address.port;
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, metrics: WatchMetrics, health: Health): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  if (path !== '/metrics' && path !== '/healthz') {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: gatehouse watch serves /metrics and /healthz\n');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
    return;
  }
  if (path === '/metrics') {
    const text = await metrics.text();
    response.writeHead(200, { 'content-type': metrics.contentType }).end(request.method === 'HEAD' ? undefined : text);
    return;
  }
  const report = health.report();
  response
    .writeHead(report.healthy ? 200 : 503, { 'content-type': 'application/json' })
    .end(request.method === 'HEAD' ? undefined : `${JSON.stringify({ status: report.healthy ? 'ok' : 'unhealthy', ...report })}\n`);
}

function listen(server: Server, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          'listen_failed',
          `cannot listen on --metrics-addr ${address.host}:${address.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : (error.code ?? error.message)}; choose another address (port 0 picks a free one)`,
        ),
      ),
    );
    server.listen(address.port, address.host, () => resolve());
  });
}
