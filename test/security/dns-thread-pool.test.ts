// A slow DNS server (an attacker's authoritative server) must not stall the process: user-supplied
// hosts resolve through c-ares on the event loop, so libuv's thread pool (4 threads, which file I/O
// uses) stays free however many lookups it holds. Asserted on order, never on durations: the file
// and media reads finish while every lookup is still held.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkUrl, HostResolver, readBounded, type UrlCheck } from '@svc/http';
import { createLocalStorage } from '@svc/media';
import { TestDnsServer } from '../../libs/http/test/support/dns-server.ts';

/** More lookups than libuv has threads (UV_THREADPOOL_SIZE defaults to 4). */
const LOOKUPS = 8;

describe('a slow DNS server and the thread pool', () => {
  let dns: TestDnsServer;
  let dir: string;
  const names = Array.from({ length: LOOKUPS }, (_, n) => `slow-${n}.attacker.test`);

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    for (const name of names) dns.answer(name, '93.184.216.34').holdQueriesOf(name);
    dir = await mkdtemp(path.join(tmpdir(), 'dns-pool-'));
  });

  afterAll(async () => {
    await dns.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads files and stored media while lookups are held, and the held lookups finish once answered', async () => {
    // Far above the test's length: the lookups end because the server answers, not by timing out.
    const resolver = new HostResolver({ servers: [dns.address], timeoutMs: 60_000 });
    const settled: UrlCheck[] = [];
    const lookups = names.map((name) =>
      checkUrl(`https://${name}/image.png`, { allowPrivate: false, resolver }).then((check) => {
        settled.push(check);
        return check;
      }),
    );
    // Every lookup has reached the server and waits there.
    while (names.some((name) => dns.queriesOf(name) === 0)) await new Promise((resolve) => setTimeout(resolve, 10));

    const file = path.join(dir, 'plain.txt');
    await writeFile(file, 'file bytes');
    expect(await readFile(file, 'utf8')).toBe('file bytes');
    const storage = createLocalStorage(dir);
    const source = path.join(dir, 'upload');
    await writeFile(source, 'media bytes');
    await storage.putFile('med_AAAAAAAAAAAAAAAAAAAAAAAA', source, 'image/png');
    expect(await storage.stat('med_AAAAAAAAAAAAAAAAAAAAAAAA')).toEqual({ size: 11, contentType: 'image/png' });
    expect((await readBounded(await storage.read('med_AAAAAAAAAAAAAAAAAAAAAAAA'))).toString()).toBe('media bytes');
    expect(settled).toEqual([]);

    dns.answerHeld();
    for (const check of await Promise.all(lookups))
      expect(check).toMatchObject({ ok: true, addresses: ['93.184.216.34'] });
  });

  it('refuses a host whose server answers too late as unresolvable', async () => {
    const resolver = new HostResolver({ servers: [dns.address], timeoutMs: 200 });
    const asked = dns.queriesOf(names[0]!);
    expect(await checkUrl(`https://${names[0]!}/image.png`, { allowPrivate: false, resolver })).toMatchObject({
      ok: false,
      reason: 'unresolvable',
      message: `the host ${names[0]!} does not resolve (no answer in time)`,
    });
    expect(dns.queriesOf(names[0]!)).toBeGreaterThan(asked);
  });
});
