import { benchAccept } from './scenarios/accept.ts';
import { profileOptionsFromEnv, serviceEnvFromEnv, startBenchSystem } from './support/bench-system.ts';
it('paced accept', async () => {
  const system = await startBenchSystem({ ...profileOptionsFromEnv(), env: serviceEnvFromEnv() });
  try {
    await system.sandbox.createLatency('x', 300);
    const r = await benchAccept(system, { connections: 64, durationSeconds: Number(process.env.SECS ?? 20) });
    const f = r.figures[0]!;
    console.log(`${Math.round(f.value)} req/s`, JSON.stringify(f.detail));
  } finally {
    await system.close();
  }
}, 600_000);
