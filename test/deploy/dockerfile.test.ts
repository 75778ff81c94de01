import { execFileSync } from 'node:child_process';
import { get, list, nodeFlags, obj, productionServices, readRepoFile, str } from './deploy-facts.ts';
import { service } from './compose-file.ts';

/** Dockerfile instructions with line continuations joined and comments dropped. */
function dockerInstructions(text: string): { keyword: string; args: string }[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const space = line.indexOf(' ');
      return { keyword: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

describe('deploy/Dockerfile', () => {
  const instructions = dockerInstructions(readRepoFile('deploy/Dockerfile'));
  const stageStarts = instructions.flatMap((instruction, index) => (instruction.keyword === 'FROM' ? [index] : []));
  const finalStage = instructions.slice(stageStarts.at(-1));
  const buildStage = instructions.slice(0, stageStarts.at(-1));
  const runs = (stage: typeof instructions): string[] => stage.filter((i) => i.keyword === 'RUN').map((i) => i.args);

  it("is multi-stage on the Node major of .nvmrc, the one package.json's engines require", () => {
    const major = readRepoFile('.nvmrc').trim();
    const engines = obj(obj(JSON.parse(readRepoFile('package.json')), 'package.json').engines, 'engines');
    expect(str(engines.node, 'engines.node')).toBe(`>=${major}`);
    expect(stageStarts.length).toBeGreaterThanOrEqual(2);
    for (const index of stageStarts)
      expect(instructions[index]?.args).toMatch(new RegExp(`^node:${major}-bookworm-slim(\\s|$)`));
  });

  it('builds with the pinned pnpm: install, generate, build, in that order', () => {
    const packageManager = str(
      obj(JSON.parse(readRepoFile('package.json')), 'package.json').packageManager,
      'packageManager',
    );
    const script = runs(buildStage).join('\n');
    expect(script).toContain(`npm i -g ${packageManager}`);
    const steps = ['pnpm install --frozen-lockfile', 'pnpm generate', 'pnpm build'].map((step) => script.indexOf(step));
    expect(steps.every((position) => position >= 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });

  it('takes the service as ARG SERVICE in the runtime stage and links its entry point', () => {
    expect(finalStage.some((i) => i.keyword === 'ARG' && /^SERVICE(=|$)/.test(i.args))).toBe(true);
    expect(runs(finalStage).join('\n')).toMatch(/ln -s "?services\/\$\{SERVICE\}\/dist\/main\.js"? \/app\/main\.js/);
  });

  it('runs as a non-root user', () => {
    const user = finalStage.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
  });

  it('starts node directly with an exec-form CMD and stops on SIGTERM', () => {
    const cmd = finalStage.filter((i) => i.keyword === 'CMD').at(-1)?.args ?? '';
    const argv = list(JSON.parse(cmd), 'CMD').map(String);
    expect(argv).toEqual(['node', ...nodeFlags(), '/app/main.js']);
    expect(finalStage.some((i) => i.keyword === 'ENTRYPOINT')).toBe(false);
    expect(finalStage.find((i) => i.keyword === 'STOPSIGNAL')?.args).toBe('SIGTERM');
  });

  it.each(productionServices.map((facts) => [facts.name, facts.code]))(
    "runs %s with its V8 flags: its compose command, or the image's CMD when it has no flags of its own",
    (name, code) => {
      const cmd = list(JSON.parse(finalStage.filter((i) => i.keyword === 'CMD').at(-1)?.args ?? '[]'), 'CMD').map(
        String,
      );
      const command = service(name).command;
      const argv = command === undefined ? cmd : list(command, `${name} command`).map(String);
      expect(argv).toEqual(['node', ...nodeFlags(code), '/app/main.js']);
    },
  );

  it('gives node only flags it accepts on the command line (a bad flag would stop every container at start)', () => {
    for (const name of [undefined, ...productionServices.map((facts) => facts.code)]) {
      expect(
        execFileSync(process.execPath, [...nodeFlags(name), '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' }),
      ).toBe('ok');
    }
    expect(finalStage.some((i) => i.keyword === 'ENV' && i.args.includes('NODE_OPTIONS'))).toBe(false);
  });

  it("builds the dashboard's pages and refuses an image of a service whose pages are missing", () => {
    const pages = str(get(JSON.parse(readRepoFile('services/dashboard/web/package.json')), 'name'), 'pages name');
    // `pnpm build` (the build stage) builds the pages into services/dashboard/web/dist, which the runtime
    // stage copies with the rest of the service's folder: the dashboard serves them from there.
    const build = str(get(JSON.parse(readRepoFile('package.json')), 'scripts.build'), 'build script');
    expect(build).toContain(`--filter ${pages} build`);
    expect(finalStage.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toContain(
      '--from=build /app/services/${SERVICE} ./services/${SERVICE}',
    );
    expect(runs(finalStage).join('\n')).toContain(
      '{ test ! -f "services/${SERVICE}/web/package.json" || test -f "services/${SERVICE}/web/dist/index.html"; }',
    );
    // Production dependencies are installed afresh (pruning in place keeps devDependencies in the
    // store), without the pages' packages: Vite bundled what the pages use.
    const prune = runs(buildStage).find((script) => script.includes('pnpm install --prod')) ?? '';
    expect(prune).toMatch(/^find \. -name node_modules -type d -prune -exec rm -rf \{\} \+\s+&& /);
    expect(prune).toContain(`--filter '!${pages}'`);
  });

  it('keeps local build output out of the build context', () => {
    const ignored = readRepoFile('deploy/Dockerfile.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
  });
});
