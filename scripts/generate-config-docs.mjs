// Writes docs/configuration.md from every service's config schema and the doc comment of each
// setting (scripts/config-reference.cjs), so the reference cannot drift from the code.
//   node scripts/generate-config-docs.mjs        (after pnpm build)
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { renderConfiguration, SERVICES } = require('./config-reference.cjs');

const schemas = Object.fromEntries(
  SERVICES.map((service) => {
    const module = require(path.join(root, `services/${service}/dist/config.js`));
    return [service, module.configSchema ?? module.sandboxConfigSchema];
  }),
);
writeFileSync(path.join(root, 'docs/configuration.md'), renderConfiguration(schemas));
console.log('wrote docs/configuration.md');
