// Checks that PostgreSQL, RabbitMQ and Redis answer at the configured addresses, and says how to
// start whichever does not. Used by scripts/start and scripts/test before anything else runs.
import net from 'node:net';

const targets = [
  [
    'PostgreSQL',
    process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432',
    5432,
    'pg_ctlcluster --skip-systemctl-redirect 15 main start',
  ],
  ['RabbitMQ', process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', 5672, 'rabbitmq-server -detached'],
  [
    'Redis',
    process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    6379,
    'redis-server --daemonize yes --port 6379 --save ""',
  ],
];

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

let missing = 0;
for (const [name, url, defaultPort, hint] of targets) {
  const parsed = new URL(url);
  const host = parsed.hostname || '127.0.0.1';
  const port = Number(parsed.port || defaultPort);
  if (await reachable(host, port)) {
    console.log(`  ${name} reachable at ${host}:${port}`);
  } else {
    missing += 1;
    console.error(
      `  ${name} is NOT reachable at ${host}:${port}. Start it (e.g. \`${hint}\`) or set the URL variable.`,
    );
  }
}
process.exit(missing === 0 ? 0 : 1);
