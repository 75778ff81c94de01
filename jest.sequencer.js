// The order jest hands test files to its two workers. The benchmarks' smoke (minutes, whole systems
// under load) starts first, and the libraries' and services' own suites (few connections each) run
// beside it on the other worker; the system suites under test/ (a whole system each, the fault suite
// ~60 connections) come after them.
// Within each group, the slowest first by the last run's durations. A fresh clone (CI) has none, and
// jest would fall back on file size: there, suites that start a browser, whole systems or service
// processes go first, then those with a database, so no long suite starts last (as in jest,
// suites without a duration run before those with one).
const { readFileSync } = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const group = (test) => {
  const file = path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
  if (file.startsWith('test/bench/benchmarks-smoke.')) return 0;
  if (file.startsWith('libs/') || file.startsWith('services/')) return 1;
  return 2;
};

const WEIGHTS = [
  [/launchBrowser\(/, 4],
  [/startSystem\(|startBenchSystem\(|startServiceProcess\(|ProcessSystem\.open\(|startDashboard\(/, 3],
  [/createTestDatabase\(|startSandbox\(/, 2],
];

/** How heavy a suite without a recorded duration looks from what it starts. */
const weightOf = (test) => {
  const source = readFileSync(test.path, 'utf8');
  return WEIGHTS.find(([pattern]) => pattern.test(source))?.[1] ?? 1;
};

class SmokeBesideUnitsSequencer extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const unknown = ordered.filter((test) => test.duration == null);
    const weights = new Map(unknown.map((test) => [test, weightOf(test)]));
    // Stable: within one weight, jest's order (the larger file first).
    const byWeight = [...unknown].sort((a, b) => weights.get(b) - weights.get(a));
    const known = ordered.filter((test) => test.duration != null);
    const all = [...byWeight, ...known];
    return [0, 1, 2].flatMap((g) => all.filter((test) => group(test) === g));
  }
}

module.exports = SmokeBesideUnitsSequencer;
