// A real webhook receiver for the tests (node:http on 127.0.0.1, port 0): records every request with
// its raw body and answers what the test scripts for its path.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  at: number;
}

/** Answers for one path: a status (and headers), or 'hang' to never answer. Called per request. */
export type Script = (
  request: Received,
  index: number,
) => { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface Receiver {
  url(path: string): string;
  received(path?: string): Received[];
  script(path: string, script: Script): void;
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const all: Received[] = [];
  const scripts = new Map<string, Script>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const request: Received = {
        path,
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = all.filter((entry) => entry.path === path).length;
      all.push(request);
      const script: Script = scripts.get(path) ?? (() => ({ status: 200 }));
      const answer = script(request, index);
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const received = (path?: string) => all.filter((entry) => path === undefined || entry.path === path);
  return {
    url: (path) => `${base}${path}`,
    received,
    script: (path, script) => void scripts.set(path, script),
    waitFor: async (path, count, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (received(path).length < count) {
        if (Date.now() > deadline)
          throw new Error(`${path} received ${received(path).length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received(path);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
