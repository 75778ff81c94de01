// Runs every service (and, unless SANDBOX=off, the network sandbox) as child processes with
// prefixed logs, restarting a crashed one with backoff. SIGINT, SIGTERM or SIGHUP stops every child
// gracefully, restarts none, and the supervisor exits when all have stopped.
// SERVICES=gateway,publisher runs only the services named (the sandbox counts as one).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { concurrently } from 'concurrently';

// The V8 flags a service runs with, as in its Kubernetes command: deploy/node-flags.<service> where it
// has its own, deploy/node-flags otherwise (the image's CMD); SERVICE_NODE_FLAGS overrides both. On
// the command line, because NODE_OPTIONS refuses --liftoff-only.
function nodeFlags(name) {
  if (process.env.SERVICE_NODE_FLAGS !== undefined) return process.env.SERVICE_NODE_FLAGS;
  const own = new URL(`../deploy/node-flags.${name}`, import.meta.url);
  return readFileSync(existsSync(own) ? own : new URL('../deploy/node-flags', import.meta.url), 'utf8').trim();
}

const all = [
  'gateway',
  'dashboard',
  'accounts',
  'publisher',
  'scheduler',
  'webhook-dispatcher',
  'analytics-sync',
  'billing',
];
if (process.env.SANDBOX !== 'off') all.unshift('sandbox');
const only = process.env.SERVICES?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = (only ?? []).filter((name) => !all.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`SERVICES names unknown services: ${unknown.join(', ')} (known: ${all.join(', ')})\n`);
  process.exit(2);
}
const services = only === undefined || only.length === 0 ? all : all.filter((name) => only.includes(name));

const commands = services.map((name) => ({
  name,
  command:
    name === 'sandbox' ? `node services/${name}/dist/main.js` : `node ${nodeFlags(name)} services/${name}/dist/main.js`,
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

// concurrently forwards a stop signal to every child itself (a second handler here would signal
// each child twice, and a service treats a second signal as "exit now"), but it counts a child's
// exit as success only when that signal was SIGINT. After SIGTERM (kill, systemd, docker stop) the
// shell it runs each command in dies of the signal, that counts as a crash, and every service was
// restarted instead of stopped. So SIGTERM and SIGHUP are handed to concurrently as SIGINT, which
// every service handles exactly like SIGTERM (libs/runtime exitOnSignal).
for (const signal of ['SIGTERM', 'SIGHUP']) {
  process.removeAllListeners(signal);
  process.on(signal, () => process.emit('SIGINT', 'SIGINT'));
}

// Development: the demo organization gets one sandbox account per network if it has none
// (scripts/seed-demo.mjs), once the gateway and the accounts service answer. SEED_DEMO=off skips it.
const seeds =
  process.env.NODE_ENV === 'development' &&
  process.env.SEED_DEMO !== 'off' &&
  ['gateway', 'accounts', 'sandbox'].every((name) => services.includes(name));
const seed = seeds
  ? spawn(process.execPath, [new URL('./seed-demo.mjs', import.meta.url).pathname], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
  : undefined;
for (const stream of [seed?.stdout, seed?.stderr])
  stream?.on('data', (chunk) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) process.stdout.write(`[seed] ${line}\n`);
  });

result
  .finally(() => seed?.exitCode === null && seed.kill())
  .then(
    () => process.exit(0),
    (events) => process.exit(events.find((e) => typeof e.exitCode === 'number' && e.exitCode !== 0)?.exitCode ?? 1),
  );
