// One jest run for the whole workspace. Sources are transformed by SWC, and workspace
// libraries are mapped to their TypeScript sources, so tests never need a prior build.
const libs = [
  'config',
  'contracts',
  'db',
  'errors',
  'logger',
  'tracing',
  'messaging',
  'runtime',
  'testing',
  'providers',
  'crypto',
  'http',
  'media',
  'sdk',
  'mcp',
  'cli',
  'calendar',
  'http-server',
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  moduleNameMapper: {
    ...Object.fromEntries(libs.map((name) => [`^@svc/${name}$`, `<rootDir>/libs/${name}/src/index.ts`])),
    '^@svc/sdk/node$': '<rootDir>/libs/sdk/src/node/index.ts',
  },
  testTimeout: 30000,
  // A promise rejected with no handler is a bug that crashes a service in production (Node's default):
  // jest 30 fails the test (or the file) it surfaces in; waiting a turn catches late ones too.
  waitForUnhandledRejections: true,
  maxWorkers: 2,
  // The benchmarks' smoke first, beside the libraries' and services' suites (jest.sequencer.js).
  testSequencer: '<rootDir>/jest.sequencer.js',
};
