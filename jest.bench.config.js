// Benchmarks run on demand (`pnpm bench`), not in CI: they print figures and ratios against a
// baseline measured in the same run, and assert nothing about time.
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/bench'],
  testMatch: ['**/*.bench.ts'],
  testTimeout: 300000,
  maxWorkers: 1,
};
