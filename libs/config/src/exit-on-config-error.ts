import { ConfigError } from './load-config.ts';

/**
 * Runs the config loader and, on a ConfigError, prints the readable list to stderr and exits 1.
 * The logger does not exist yet at that point, hence plain stderr.
 */
export function exitOnConfigError<T>(service: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: cannot start.\n${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
