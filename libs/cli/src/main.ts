#!/usr/bin/env node
import { runCli } from './run-cli.ts';

// The process boundary: the real streams and environment in, the exit status out. It exits at once
// when the command is done, so an idle keep-alive socket or a progress timer never holds it open
// (stdout and stderr are synchronous for files, pipes and terminals on Linux and macOS).
void runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
}).then((code) => process.exit(code));
