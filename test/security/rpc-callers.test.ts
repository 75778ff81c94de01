import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as contracts from '@svc/contracts';
import type { RpcDef } from '@svc/contracts';

// Every RPC names the services that may call it (brokers with one user per service refuse the rest:
// libs/messaging/src/rpc-server.ts). The declarations are checked against the code: each `rpc(<def>`
// in a service's sources must come from a declared caller, and each declared caller must make one.
const root = path.resolve(__dirname, '../..');

const rpcs = new Map<string, RpcDef>(
  Object.entries(contracts as Record<string, unknown>)
    .filter(([, value]) => (value as { kind?: unknown } | null)?.kind === 'rpc')
    .map(([name, value]) => [name, value as RpcDef]),
);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Definition export name -> the services whose sources call it. */
function callSites(): Map<string, Set<string>> {
  const sites = new Map<string, Set<string>>();
  for (const service of readdirSync(path.join(root, 'services'))) {
    let files: string[];
    try {
      files = sources(path.join(root, 'services', service, 'src'));
    } catch {
      continue;
    }
    for (const file of files)
      for (const [, name] of readFileSync(file, 'utf8').matchAll(/\brpc\(\s*(\w+)/g))
        if (rpcs.has(name!)) (sites.get(name!) ?? sites.set(name!, new Set()).get(name!)!).add(service);
  }
  return sites;
}

describe('RPC callers', () => {
  const sites = callSites();

  it('finds the call sites it checks', () => {
    expect(sites.get('credentialsGet')).toEqual(new Set(['publisher', 'analytics-sync']));
    expect(sites.size).toBeGreaterThan(30);
  });

  it('are declared on every RPC, and only the transport leaves them open', () => {
    const open = [...rpcs].filter(([, def]) => def.callers === 'any').map(([, def]) => def.type);
    expect(open.sort()).toEqual(['system.batch.v1', 'system.ping.v1']);
    for (const [name, def] of rpcs) {
      if (def.callers === 'any') continue;
      expect({ name, callers: def.callers.length > 0 }).toEqual({ name, callers: true });
    }
  });

  it('match the code: every call comes from a declared caller, every declared caller calls', () => {
    const mismatches: string[] = [];
    for (const [name, def] of rpcs) {
      if (def.callers === 'any') continue;
      const calling = [...(sites.get(name) ?? [])].sort();
      const declared = [...def.callers].sort();
      if (calling.join() !== declared.join())
        mismatches.push(`${def.type}: declared [${declared.join(', ')}], called by [${calling.join(', ')}]`);
    }
    expect(mismatches).toEqual([]);
  });
});
