import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema as accounts } from '../../services/accounts/src/config.ts';
import { configSchema as analyticsSync } from '../../services/analytics-sync/src/config.ts';
import { configSchema as billing } from '../../services/billing/src/config.ts';
import { configSchema as dashboard } from '../../services/dashboard/src/config.ts';
import { configSchema as gateway } from '../../services/gateway/src/config.ts';
import { configSchema as publisher } from '../../services/publisher/src/config.ts';
import { sandboxConfigSchema as sandbox } from '../../services/sandbox/src/config.ts';
import { configSchema as scheduler } from '../../services/scheduler/src/config.ts';
import { configSchema as webhookDispatcher } from '../../services/webhook-dispatcher/src/config.ts';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { renderConfiguration } = require('../../scripts/config-reference.cjs') as {
  renderConfiguration: (schemas: Record<string, unknown>) => string;
};

const schemas = {
  gateway,
  accounts,
  publisher,
  scheduler,
  'webhook-dispatcher': webhookDispatcher,
  'analytics-sync': analyticsSync,
  billing,
  dashboard,
  sandbox,
};

describe('docs/configuration.md', () => {
  it("is generated from every service's config schema (run `node scripts/generate-config-docs.mjs` after a build)", () => {
    expect(readFileSync(path.resolve(__dirname, '../../docs/configuration.md'), 'utf8')).toBe(
      renderConfiguration(schemas),
    );
  });
});
