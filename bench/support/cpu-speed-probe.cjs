// The machine's speed, sampled by a process of its own (bench/support/cpu-speed.ts starts it): every
// interval it does the same fixed pieces of work and prints, as a line of JSON, the CPU ms the
// compute took and the CPU ns one random memory read took. Neither should change; on this machine's
// virtual cores the compute has moved 3x within a minute (docs/performance.md, "A steady machine"). The memory
// read is there because the compute alone missed a difference of 2x between two machines: the same
// soak ran at twice the deliveries per second, at half the CPU ms per delivery in every process, on
// a machine whose compute probe was 10% slower (same section).
// A slower kernel path (system calls, wake-ups) is seen by neither.
//   node bench/support/cpu-speed-probe.cjs [interval ms]
const { createHash } = require('node:crypto');

const intervalMs = Number(process.argv[2] ?? 10_000);
const block = Buffer.alloc(1 << 20, 7);

/** About 60 ms on an idle core of this machine: hashing (native code) and an integer loop (JIT code). */
function compute() {
  let digest = block;
  for (let i = 0; i < 40; i++) digest = createHash('sha256').update(block).update(digest).digest();
  let x = 0;
  for (let i = 0; i < 30_000_000; i++) x = (x * 31 + i) | 0;
  return x ^ digest[0];
}

// 64 MB, more than a core's caches, linked into one random cycle (Sattolo's shuffle): each read's
// address comes from the previous read, so every read waits for memory (and, mostly, a TLB miss).
const SLOTS = 1 << 24;
const next = new Int32Array(SLOTS);
for (let i = 0; i < SLOTS; i++) next[i] = i;
for (let i = SLOTS - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * i);
  [next[i], next[j]] = [next[j], next[i]];
}
const READS = 400_000; // about 60 ms at this machine's 150 ns a read

function chase(from) {
  let slot = from;
  for (let i = 0; i < READS; i++) slot = next[slot];
  return slot;
}

function cpuMsOf(work) {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

let slot = 0;
function sample() {
  const cpuMs = cpuMsOf(compute);
  const memNs =
    (cpuMsOf(() => {
      slot = chase(slot);
    }) *
      1e6) /
    READS;
  process.stdout.write(`${JSON.stringify({ at: Date.now(), cpuMs, memNs })}\n`);
}

compute(); // compiled and warm before the first sample
chase(0);
sample();
setInterval(sample, intervalMs);
