import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  base: string;
  close: () => Promise<void>;
}

/** A local HTTP server with per-path handlers, bound to 127.0.0.1 on a free port. */
export async function startServer(
  routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>,
): Promise<TestServer> {
  const server: Server = createServer((req, res) => {
    const route = routes[(req.url ?? '').split('?')[0] ?? ''];
    if (route) route(req, res);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
