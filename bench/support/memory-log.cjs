// Loaded into a service with `node --require` (BENCH_DISPATCHER_NODE_OPTIONS="--require
// bench/support/memory-log.cjs"): samples process.memoryUsage() and V8's heap spaces every 100 ms and,
// when the process exits, appends two lines to MEMORY_LOG_FILE (default /tmp/memory-log.txt): the
// first sample 6 s after start (idle, once the service is up) and the sample at the highest RSS.
const fs = require('node:fs');
const v8 = require('node:v8');

const mb = (bytes) => (bytes / 1048576).toFixed(1);
const spaces = () =>
  Object.fromEntries(
    v8.getHeapSpaceStatistics().map((space) => [space.space_name.replace('_space', ''), mb(space.space_size)]),
  );
const sample = () => ({ ...process.memoryUsage(), spaces: spaces() });
const format = (m) =>
  `rss ${mb(m.rss)} heapUsed ${mb(m.heapUsed)} heapTotal ${mb(m.heapTotal)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)} spaces ${JSON.stringify(m.spaces)}`;

const started = Date.now();
let idle = null;
let peak = sample();
setInterval(() => {
  const now = sample();
  if (idle === null && Date.now() - started > 6000) idle = now;
  if (now.rss > peak.rss) peak = now;
}, 100).unref();
process.on('exit', () => {
  const name = `${process.pid} ${process.argv.slice(1).join(' ')}`;
  fs.appendFileSync(
    process.env.MEMORY_LOG_FILE ?? '/tmp/memory-log.txt',
    `[${name}] idle: ${idle === null ? '-' : format(idle)}\n[${name}] peak: ${format(peak)}\n`,
  );
});
