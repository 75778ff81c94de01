// Where a V8 CPU profile (node --cpu-prof; scripts/bench deliver with BENCH_PROFILE=<dir> writes the
// publisher's) spends its time: self time by origin (Prisma, pg, amqplib, other packages, our code,
// node itself, GC, idle) and the top functions by self time; with `slices`, also the busy time of
// each origin in that many equal slices of the run, to see what grew (a soak's bench process, say).
//   node scripts/profile-summary.mjs <file.cpuprofile> [top=25] [slices]
import { readFileSync } from 'node:fs';

const [file, topArg, slicesArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node scripts/profile-summary.mjs <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

function origin({ functionName, url }) {
  if (['(idle)', '(garbage collector)', '(program)'].includes(functionName)) return functionName;
  if (url === '') return '(native: node/V8 builtins)';
  // Prisma's query compiler is WebAssembly (query_compiler_bg.wasm); nothing else in the services is.
  if (url.startsWith('wasm://')) return 'Prisma';
  if (/@prisma|generated\/prisma|prisma-client/.test(url)) return 'Prisma';
  if (/node_modules\/(\.pnpm\/)?(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)[@/]/.test(url)) return 'pg';
  if (/amqplib/.test(url)) return 'amqplib';
  if (url.includes('node_modules'))
    return `package ${/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? '?'}`;
  if (url.startsWith('node:')) return 'node (lib)';
  if (/\/(services|libs)\//.test(url)) return 'our code';
  return 'other';
}

const total = [...self.values()].reduce((a, b) => a + b, 0);
const busy =
  total - [...self].filter(([id]) => byId.get(id).callFrame.functionName === '(idle)').reduce((a, [, t]) => a + t, 0);
const groups = new Map();
const functions = new Map();
for (const [id, time] of self) {
  const frame = byId.get(id).callFrame;
  const group = origin(frame);
  groups.set(group, (groups.get(group) ?? 0) + time);
  const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/(services|libs)\//, '$1/')}:${frame.lineNumber + 1}`;
  functions.set(name, { group, time: (functions.get(name)?.time ?? 0) + time });
}
// Native work (writev, writeBuffer, ...) charged to whoever asked for it: the nearest caller whose
// origin is a package or our code (node's own lib frames in between are skipped).
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const charged = new Map();
for (const [id, time] of self) {
  let group = origin(byId.get(id).callFrame);
  if (group === '(idle)') continue;
  if (group.startsWith('(native') || group === 'node (lib)') {
    for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
      const owner = origin(byId.get(up).callFrame);
      if (!owner.startsWith('(') && owner !== 'node (lib)' && owner !== 'other') {
        group = `${owner} (incl. native/node work it called)`;
        break;
      }
    }
  }
  charged.set(group, (charged.get(group) ?? 0) + time);
}
const pct = (t, of) => `${((100 * t) / of).toFixed(1)}%`;
console.log(
  `profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (${pct(busy, total)})`,
);
console.log('\nself time by origin (share of busy time):');
for (const [group, time] of [...groups].sort((a, b) => b[1] - a[1]))
  if (group !== '(idle)') console.log(`  ${pct(time, busy).padStart(6)}  ${group}`);
console.log('\nthe same, native and node-lib work charged to its nearest package or our-code caller:');
for (const [group, time] of [...charged].sort((a, b) => b[1] - a[1]).slice(0, 12))
  console.log(`  ${pct(time, busy).padStart(6)}  ${group}`);
console.log(`\ntop ${topArg ?? 25} functions by self time (share of busy time):`);
for (const [name, { group, time }] of [...functions]
  .filter(([, f]) => f.group !== '(idle)')
  .sort((a, b) => b[1].time - a[1].time)
  .slice(0, Number(topArg ?? 25))) {
  console.log(`  ${pct(time, busy).padStart(6)}  ${name}  [${group}]`);
}

if (slicesArg !== undefined) {
  // Busy ms of each origin per wall-clock second, in equal slices of the sampled time.
  const slices = Number(slicesArg);
  const length = total / slices;
  const perSlice = Array.from({ length: slices }, () => new Map());
  let at = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const group = origin(byId.get(id).callFrame);
    if (group === '(idle)') return;
    const slice = perSlice[Math.min(slices - 1, Math.floor(at / length))];
    slice.set(group, (slice.get(group) ?? 0) + delta);
  });
  const top = [...groups]
    .filter(([group]) => group !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([group]) => group);
  console.log(`\nbusy ms per second of each origin, in ${slices} slices of ${(length / 1e6).toFixed(0)} s:`);
  console.log(['slice', 'all', ...top].join('\t'));
  perSlice.forEach((slice, index) => {
    const perSecond = (t) => ((t / length) * 1000).toFixed(0);
    const all = [...slice.values()].reduce((a, b) => a + b, 0);
    console.log([index + 1, perSecond(all), ...top.map((group) => perSecond(slice.get(group) ?? 0))].join('\t'));
  });
}
