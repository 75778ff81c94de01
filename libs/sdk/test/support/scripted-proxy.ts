// A small HTTP proxy in front of the gateway whose answers a test scripts per request: forward,
// forward and then cut the connection before answering (the API did the work, the client never
// hears), answer itself (a 429, a 503), or never answer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  at: number;
}

export type ProxyAction =
  'forward' | 'forward_then_drop' | 'hang' | { status: number; headers?: Record<string, string>; body?: unknown };

export interface ScriptedProxy {
  url: string;
  requests: ProxiedRequest[];
  /** Decides each request's fate; `index` counts requests of the same method and path. */
  script(decide: (request: ProxiedRequest, index: number) => ProxyAction): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function startScriptedProxy(target: string): Promise<ScriptedProxy> {
  const requests: ProxiedRequest[] = [];
  let decide: (request: ProxiedRequest, index: number) => ProxyAction = () => 'forward';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ProxiedRequest = { method: req.method!, path: req.url!, headers: req.headers, at: Date.now() };
      const index = requests.filter((seen) => seen.method === request.method && seen.path === request.path).length;
      requests.push(request);
      const action = decide(request, index);
      if (action === 'hang') return;
      if (typeof action === 'object') {
        res.writeHead(action.status, { 'Content-Type': 'application/json', ...action.headers });
        res.end(action.body === undefined ? '' : JSON.stringify(action.body));
        return;
      }
      const headers = Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name));
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      fetch(`${target}${req.url}`, { method: req.method, headers: headers as [string, string][], body })
        .then(async (answer) => {
          const bytes = Buffer.from(await answer.arrayBuffer());
          if (action === 'forward_then_drop') return void req.socket.destroy();
          const out = [...answer.headers].filter(([name]) => !HOP_BY_HOP.has(name) && name !== 'content-encoding');
          res.writeHead(answer.status, Object.fromEntries(out)).end(bytes);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script: (next) => void (decide = next),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
