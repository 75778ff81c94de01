// Runs every service (and, unless SANDBOX=off, the network sandbox) as child processes with
// prefixed logs, restarting a crashed one with backoff. SIGINT/SIGTERM is passed to every child,
// which shuts down gracefully; the supervisor exits when all have stopped.
import { concurrently } from 'concurrently';

const services = ['gateway', 'accounts', 'publisher', 'scheduler', 'webhook-dispatcher', 'analytics-sync', 'billing'];
if (process.env.SANDBOX !== 'off') services.unshift('sandbox');

const commands = services.map((name) => ({
  name,
  command: `node services/${name}/dist/main.js`,
  env: name === 'sandbox' ? { PORT: process.env.SANDBOX_PORT ?? '4010' } : {},
}));

const { result } = concurrently(commands, {
  prefix: 'name',
  padPrefix: true,
  killSignal: 'SIGTERM',
  restartTries: 5,
  restartDelay: 'exponential',
  handleInput: false,
});

// concurrently forwards SIGINT/SIGTERM to every child itself; a second handler here would signal
// each child twice, and a service treats a second signal as "exit now".
result.then(
  () => process.exit(0),
  (events) => process.exit(events.find((e) => typeof e.exitCode === 'number' && e.exitCode !== 0)?.exitCode ?? 1),
);
