import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ensureServiceDatabase } from '@svc/testing';

const root = path.resolve(__dirname, '../..');

/**
 * The V8 flags a service runs with, as in its Kubernetes command: `deploy/node-flags.<service>` where
 * the service has its own, `deploy/node-flags` otherwise (the image's CMD). SERVICE_NODE_FLAGS
 * overrides both, for every service. On the command line, because NODE_OPTIONS refuses --liftoff-only.
 */
export function serviceNodeFlags(name: string): string[] {
  return (process.env.SERVICE_NODE_FLAGS ?? readFileSync(nodeFlagsFile(name), 'utf8')).split(/\s+/).filter(Boolean);
}

/** The file of a service's V8 flags: its own `deploy/node-flags.<service>`, else `deploy/node-flags` (also with no service: the image's CMD). */
export function nodeFlagsFile(name?: string): string {
  const own = path.join(root, `deploy/node-flags.${name}`);
  return name !== undefined && existsSync(own) ? own : path.join(root, 'deploy/node-flags');
}

/** A built service (dist/) running as its own process, the way scripts/start and Kubernetes run it. */
export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** The API port (gateway) or the probe port (workers). */
  port: number;
  probePort: number;
  lines: string[];
}

export function serviceEntry(name: string): string {
  const file = path.join(root, 'services', name, 'dist', 'main.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: build first (pnpm build; scripts/test does it).`);
  return file;
}

/**
 * Starts `services/<name>/dist/main.js` and resolves once it logs "<name> ready". `nodeArgs` go before
 * the entry (e.g. `--cpu-prof`, which NODE_OPTIONS does not accept). Its `DATABASE_NAME`, when given
 * and missing, is first copied from the service's migrated template.
 */
export async function startServiceProcess(
  name: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ServiceProcess> {
  if (env.DATABASE_NAME !== undefined) await ensureServiceDatabase(name, env.DATABASE_NAME);
  const child = spawn(process.execPath, [...serviceNodeFlags(name), ...nodeArgs, serviceEntry(name)], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', PROBE_PORT: '0', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not become ready:\n${lines.slice(-30).join('\n')}`));
    }, 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      let record: { msg?: string; probe_port?: number; port?: number };
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        return;
      }
      if (record.msg === `${name} ready`) {
        clearTimeout(timer);
        resolve({ name, child, port: record.port ?? record.probe_port ?? 0, probePort: record.probe_port ?? 0, lines });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${lines.slice(-30).join('\n')}`));
    });
  });
}

/** Sends `signal` and resolves with the exit code (null after a kill signal). */
export function signalServiceProcess(service: ServiceProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) return resolve(service.child.exitCode);
    service.child.once('exit', (code) => resolve(code));
    service.child.kill(signal);
  });
}

/** A TCP port free right now, for a process that must be told its port before it starts (PORT). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
