import { PassThrough } from 'node:stream';
import type { CliIo } from './io.ts';
import { buildProgram } from './program.ts';
import { runCli } from './run-cli.ts';

function captured(): { io: CliIo; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { io: { stdout, stderr, stdin: new PassThrough(), env: {} }, out: () => out, err: () => err };
}

/** Every command path of the tree, groups included. */
function commandPaths(): string[][] {
  const paths: string[][] = [];
  const walk = (command: ReturnType<typeof buildProgram>, prefix: string[]) => {
    for (const sub of command.commands) {
      paths.push([...prefix, sub.name()]);
      walk(sub, [...prefix, sub.name()]);
    }
  };
  walk(buildProgram(captured().io), []);
  return paths;
}

describe('the command tree', () => {
  it('has the commands of docs/cli.md', () => {
    expect(commandPaths().map((path) => path.join(' '))).toEqual([
      'login',
      'dev',
      'dev token',
      'accounts',
      'accounts list',
      'accounts connect',
      'accounts refresh',
      'accounts remove',
      'accounts capabilities',
      'post',
      'queue',
      'queue get',
      'queue set',
      'posts',
      'posts publish',
      'posts retry',
      'posts delete',
      'recurrences',
      'recurrences get',
      'recurrences delete',
      'history',
      'job',
      'media',
      'media upload',
      'media list',
      'webhooks',
      'webhooks list',
      'webhooks create',
      'webhooks test',
      'webhooks deliveries',
      'webhooks replay',
      'analytics',
      'mcp',
    ]);
  });

  it.each(commandPaths().map((path) => [path.join(' '), path]))(
    'svc %s --help: exit 0, usage on stdout',
    async (_name, path) => {
      const { io, out, err } = captured();
      expect(await runCli([...path, '--help'], io)).toBe(0);
      expect(out()).toMatch(new RegExp(`^Usage: svc ${path.join(' ')} `));
      expect(err()).toBe('');
    },
  );
});
