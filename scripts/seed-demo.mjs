// Development only: gives the demo organization (the organization POST /v1/dev/token names by
// default) one sandbox account per network when it has none, so a newcomer's first
// `scripts/svc post "Hello" --to all` reaches all five networks. scripts/supervise.mjs runs it once
// the system starts in development; by hand (after a build): node scripts/seed-demo.mjs
// Reads SVC_BASE_URL (default http://127.0.0.1:$PORT) and the network settings scripts/start exports.
import { createRequire } from 'node:module';
import { setTimeout as delay } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { loadConfig } = require('../libs/config/dist/index.js');
const { providerConfigObjectSchema, providersFromConfig } = require('../libs/providers/dist/index.js');
const { createClient } = require('../libs/sdk/dist/index.js');

const NETWORKS = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'];
const baseUrl = process.env.SVC_BASE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`;
/** How long the services may take to come up before the seed gives up. */
const deadline = Date.now() + Number(process.env.SEED_DEMO_TIMEOUT_MS ?? 120_000);

/**
 * Runs `step` until it succeeds or the deadline passes: the gateway and the accounts service start in
 * parallel, so until both are up a step fails with no answer, a 5xx or a 429. Any other refusal (a
 * gateway not in development mode answers 404) is final.
 */
async function untilReady(what, step) {
  for (;;) {
    try {
      return await step();
    } catch (error) {
      const retryable = error.status === undefined || error.status >= 500 || error.status === 429;
      if (!retryable || Date.now() > deadline) throw new Error(`${what}: ${error.message}`);
      await delay(1000);
    }
  }
}

async function main() {
  const anonymous = createClient({ baseUrl, retry: false });
  const minted = await untilReady('dev token', () => anonymous.call('createDevToken', { body: {} }));
  const client = createClient({ baseUrl, token: minted.token, retry: false });
  const existing = await untilReady('list accounts', () => client.accounts.list({ limit: 1 }).page());
  if (existing.total > 0) {
    console.log(`organization ${minted.org_id} already has ${existing.total} account(s): nothing to seed`);
    return;
  }
  // The adapters' own profile read learns which network account each sandbox token acts for.
  const providers = providersFromConfig(loadConfig(providerConfigObjectSchema, process.env), {
    allowPrivateUrls: true,
  });
  for (const network of NETWORKS) {
    const token = `demo-${network}`;
    const account = await untilReady(`connect ${network}`, async () => {
      const profile = await providers[network].profile.fetch({ accessToken: token });
      return client.accounts.create({
        provider: network,
        platform_account_id: profile.platformAccountId,
        credentials: { access_token: token },
      });
    });
    console.log(`connected ${network} account ${account.id}${account.handle ? ` (@${account.handle})` : ''}`);
  }
  console.log(`organization ${minted.org_id} is ready: scripts/svc login --dev, then scripts/svc accounts list`);
}

main().catch((error) => {
  console.error(`seeding the demo organization failed: ${error.message}`);
  process.exit(1);
});
