import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

// The guard every other suite relies on: if jest stopped failing on unhandled rejections, a leaked
// RPC timer (a gateway crash) could ship green.
describe('the test runner', () => {
  it('fails a run in which a promise rejection is left unhandled', () => {
    const run = spawnSync(
      process.execPath,
      [
        require.resolve('jest/bin/jest'),
        '--ci',
        '--rootDir',
        root,
        '--roots',
        '<rootDir>/test/support/fixtures/unhandled',
        '--testMatch',
        '**/*.fixture.ts',
      ],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toContain('leaked rejection');
    expect(run.status).toBe(1);
  });
});
