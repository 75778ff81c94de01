import type { Server } from 'node:http';

/**
 * The shutdown step of an HTTP server: it stops accepting, closes the idle keep-alive connections at
 * once (they would otherwise hold `close` open until their client goes) and waits for the requests
 * in flight.
 */
export function closeServerStep(server: Server): { name: string; run: () => Promise<void> } {
  return {
    name: 'http',
    run: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
