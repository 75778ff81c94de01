// What loading things costs a fresh node process, one process per stage (run after `pnpm build`):
//   for s in modules pg-query prisma-load prisma-query; do node --expose-gc bench/support/memory-probe.cjs $s; done
// modules: the webhook-dispatcher's code and libs (what its main.js loads); pg-query: + one query on
// a plain pg pool; prisma-load: + its generated Prisma client loaded and instantiated; prisma-query:
// + one query through that client (which instantiates Prisma's WebAssembly query compiler).
// Prints process.memoryUsage() after a full GC. Needs PostgreSQL (DATABASE_URL) and connects to its
// `postgres` database, running only `SELECT 1`.
const path = require('node:path');
const { createRequire } = require('node:module');

const service = path.resolve(__dirname, '../../services/webhook-dispatcher');
const load = createRequire(path.join(service, 'package.json'));
const stage = process.argv[2] ?? 'modules';
const mb = (bytes) => (bytes / 1048576).toFixed(1);

async function main() {
  const db = load('@svc/db');
  const connection = db.connectionConfig(
    process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432',
    'postgres',
  );
  load('@svc/runtime');
  load(path.join(service, 'dist/wiring.js'));
  if (stage === 'pg-query') {
    const sql = db.createPgRawSql(connection, { max: 10, onIdleError: () => undefined });
    await sql.$queryRawUnsafe('SELECT 1');
  }
  if (stage === 'prisma-load' || stage === 'prisma-query') {
    const { PrismaClient } = load(path.join(service, 'dist/generated/prisma/client.js'));
    const client = new PrismaClient({ adapter: db.createPrismaAdapter(connection, { max: 10 }) });
    if (stage === 'prisma-query') await client.$queryRawUnsafe('SELECT 1');
  }
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const m = process.memoryUsage();
  console.log(
    `${stage.padEnd(13)} rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} / total ${mb(m.heapTotal)}, external ${mb(m.external)}, array buffers ${mb(m.arrayBuffers)}`,
  );
  process.exit(0);
}
main();
