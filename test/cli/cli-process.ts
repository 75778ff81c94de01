// Runs the built svc command line (libs/cli/dist/main.js) as a process, exactly as a user's shell
// would, with its own HOME and config directory and only the SVC_* variables a test gives it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = path.resolve(__dirname, '../..');
export const CLI_MAIN = path.join(ROOT, 'libs/cli/dist/main.js');
export const SAMPLE_IMAGE = path.join(ROOT, 'docs/assets/hello.jpg');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temporary home for one test file's CLI runs: HOME, XDG_CONFIG_HOME and the API address. */
export interface CliHome {
  dir: string;
  env: Record<string, string>;
  remove(): Promise<void>;
}

export async function cliHome(baseUrl: string): Promise<CliHome> {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: build first (pnpm build)`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-cli-'));
  return {
    dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, 'config'),
      SVC_BASE_URL: baseUrl,
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Starts `svc <args>`; `exited` resolves with its status and everything it printed. */
export function startSvc(
  args: string[],
  env: Record<string, string>,
  input?: string,
): { child: ChildProcess; exited: Promise<CliResult>; lines: { stdout: string[]; stderr: string[] } } {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: ROOT,
    env,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  createInterface({ input: child.stdout! }).on('line', (line) => lines.stdout.push(line));
  createInterface({ input: child.stderr! }).on('line', (line) => lines.stderr.push(line));
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        code,
        stdout: lines.stdout.map((l) => `${l}\n`).join(''),
        stderr: lines.stderr.map((l) => `${l}\n`).join(''),
      }),
    );
  });
  return { child, exited, lines };
}

export function svc(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return startSvc(args, env, input).exited;
}

/** `svc <args> --json`, expecting exit 0, parsed. */
export async function svcJson<T = unknown>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await svc([...args, '--json'], env);
  if (result.code !== 0)
    throw new Error(`svc ${args.join(' ')} exited ${result.code}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout) as T;
}
