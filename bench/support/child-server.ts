import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Runs a baseline server (`source`, a script that prints its port when listening) in a process of
 * its own, like the service it is compared with, and hands `use` its base URL.
 */
export async function withChildServer<T>(source: string, use: (base: string) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the baseline server exited with ${code}`)));
    });
    return await use(`http://127.0.0.1:${port}`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
