// The order jest hands test files to its two workers. The benchmarks' smoke (about 3 minutes, whole
// systems, its soak two at once: about 70 of PostgreSQL's 100 connections) starts first, and the
// libraries' and services' own suites (few connections each, about 3 minutes in all) run beside it on
// the other worker; the system suites under test/ (a whole system each, the fault suite ~60
// connections) come after them, so the smoke's soak (its fifth of ten tests) runs beside small suites.
// Within each group, jest's own order: the slowest first by the last run's durations.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const group = (test) => {
  const file = path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
  if (file.startsWith('test/bench/benchmarks-smoke.')) return 0;
  if (file.startsWith('libs/') || file.startsWith('services/')) return 1;
  return 2;
};

class SmokeBesideUnitsSequencer extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    return [0, 1, 2].flatMap((g) => ordered.filter((test) => group(test) === g));
  }
}

module.exports = SmokeBesideUnitsSequencer;
