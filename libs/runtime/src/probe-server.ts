import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@svc/logger';
import type { Registry } from 'prom-client';

export interface ProbeServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  /** Readiness: false while starting, while draining, or when a dependency is gone. */
  isReady: () => boolean;
  logger: Logger;
}

export interface ProbeServer {
  port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/** Liveness (/livez), readiness (/readyz) and Prometheus metrics (/metrics) for worker services. */
export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, 405, JSON.stringify({ status: 'method_not_allowed' }));
    if (path === '/livez') return send(res, 200, JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      const ready = options.isReady();
      return send(res, ready ? 200 : 503, JSON.stringify({ status: ready ? 'ready' : 'not_ready' }));
    }
    if (path === '/metrics') {
      options.registry.metrics().then(
        (text) => send(res, 200, text, options.registry.contentType),
        (error: unknown) => {
          options.logger.error({ err: error }, 'metrics collection failed');
          send(res, 500, JSON.stringify({ status: 'error' }));
        },
      );
      return;
    }
    send(res, 404, JSON.stringify({ status: 'not_found' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
