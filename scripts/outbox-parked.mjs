// Operator tool: the outbox rows a service's relay gave up on (refused past its attempt budget, or
// unpublishable), and requeueing them once the cause is fixed (e.g. the consuming service is deployed).
//   node scripts/outbox-parked.mjs <service> list [--type <message type>] [--limit N]
//   node scripts/outbox-parked.mjs <service> requeue [--type <message type>] [--id <uuid>]... [--limit N]
// e.g. node scripts/outbox-parked.mjs publisher requeue --type post.published.v1
// Reads DATABASE_URL (and DATABASE_NAME, default social_<service>) like the services; needs a build (pnpm build).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const db = require('../libs/db/dist/index.js');
const pg = createRequire(require.resolve('../libs/db/dist/index.js'))('pg');

const [service, command, ...rest] = process.argv.slice(2);
const usage = 'usage: node scripts/outbox-parked.mjs <service> list|requeue [--type T] [--id UUID]... [--limit N]';
if (!service || !['list', 'requeue'].includes(command ?? '')) {
  console.error(usage);
  process.exit(2);
}
const options = { ids: [] };
for (let i = 0; i < rest.length; i += 2) {
  const [flag, value] = [rest[i], rest[i + 1]];
  if (value === undefined) {
    console.error(usage);
    process.exit(2);
  }
  if (flag === '--type') options.type = value;
  else if (flag === '--id') options.ids.push(value);
  else if (flag === '--limit' && /^[1-9]\d*$/.test(value)) options.limit = Number(value);
  else {
    console.error(usage);
    process.exit(2);
  }
}

const connection = db.connectionConfig(
  process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432',
  process.env.DATABASE_NAME ?? db.serviceDatabaseName(service),
);
const client = new pg.Client(connection);
await client.connect();
// The slice of a Prisma client the libs/db functions need.
const raw = {
  $queryRawUnsafe: async (sql, ...values) => (await client.query(sql, values)).rows,
  $executeRawUnsafe: async (sql, ...values) => (await client.query(sql, values)).rowCount ?? 0,
};
try {
  if (command === 'list') {
    const rows = await db.listParkedOutbox(raw, {
      limit: options.limit ?? 100,
      ...(options.type ? { type: options.type } : {}),
    });
    for (const row of rows)
      console.log(
        `${row.id}  ${row.type}  attempts=${row.attempts}  parked_at=${row.parked_at.toISOString()}  ${row.last_error ?? ''}`,
      );
    console.log(`${rows.length} parked message(s) in ${connection.database}`);
  } else {
    const moved = await db.requeueParkedOutbox(raw, {
      ...(options.ids.length > 0 ? { ids: options.ids } : {}),
      ...(options.type ? { type: options.type } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    });
    console.log(`requeued ${moved} message(s) in ${connection.database}; the running relay publishes them now`);
  }
} finally {
  await client.end();
}
