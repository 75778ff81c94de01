// The gateway and the webhook dispatcher keep Prisma's client out of their processes: its query
// compiler is loaded by the first query, raw ones included, and costs about 20 MB of RSS each
// (docs/performance.md, "The gateway's young generation, without Prisma's client"). Their
// schemas and migrations stay Prisma's, run from a child process. A single import of the client
// would bring the cost back.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const services = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe.each(['gateway', 'webhook-dispatcher'])('%s', (service) => {
  it('never imports a Prisma client, its own generated one or @prisma/client', () => {
    const files = sources(path.join(services, service, 'src'));
    expect(files.length).toBeGreaterThan(10);
    const importing = files.filter((file) =>
      /from '(@prisma\/client|[^']*generated\/prisma[^']*)'|require\('@prisma\/client'\)/.test(
        readFileSync(file, 'utf8'),
      ),
    );
    expect(importing.map((file) => path.relative(services, file))).toEqual([]);
  });
});
