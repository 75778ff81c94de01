// The machine's speed, sampled by a process of its own (bench/support/cpu-speed.ts starts it): every
// interval it does the same fixed piece of CPU work and prints the CPU time that took, in ms, as a
// line of JSON. The CPU time of fixed work should not change; on this machine's virtual cores it has
// moved 3x within a minute (docs/performance.md, "Soak"), and a benchmark's rate moves with it.
// Only CPU-bound speed is seen: a slower kernel path (system calls, wake-ups) is not.
//   node bench/support/cpu-speed-probe.cjs [interval ms]
const { createHash } = require('node:crypto');

const intervalMs = Number(process.argv[2] ?? 10_000);
const block = Buffer.alloc(1 << 20, 7);

/** About 60 ms on an idle core of this machine: hashing (native code) and an integer loop (JIT code). */
function work() {
  let digest = block;
  for (let i = 0; i < 40; i++) digest = createHash('sha256').update(block).update(digest).digest();
  let x = 0;
  for (let i = 0; i < 30_000_000; i++) x = (x * 31 + i) | 0;
  return x ^ digest[0];
}

function sample() {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  process.stdout.write(`${JSON.stringify({ at: Date.now(), cpuMs: (used.user + used.system) / 1000 })}\n`);
}

work(); // compiled and warm before the first sample
sample();
setInterval(sample, intervalMs);
