import { exitOnConfigError } from '@svc/config';
import { createLogger } from '@svc/logger';
import { createSandboxApp } from './app.ts';
import { loadSandboxConfig } from './config.ts';

const config = exitOnConfigError('sandbox', () => loadSandboxConfig());
const logger = createLogger({ service: 'sandbox', level: config.LOG_LEVEL });
if (config.NODE_ENV === 'production') logger.warn('the network sandbox is for development and tests only');

const app = createSandboxApp({
  publicUrl: config.SANDBOX_PUBLIC_URL,
  allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
  timeoutFaultMs: config.SANDBOX_TIMEOUT_FAULT_MS,
  processingPolls: config.SANDBOX_PROCESSING_POLLS,
  igQuotaTotal: config.SANDBOX_IG_QUOTA_TOTAL,
  ...(config.SANDBOX_TIKTOK_VERIFIED_PREFIXES === undefined
    ? {}
    : {
        tiktokVerifiedPrefixes: config.SANDBOX_TIKTOK_VERIFIED_PREFIXES.split(',')
          .map((prefix) => prefix.trim())
          .filter(Boolean),
      }),
  ...(config.SANDBOX_STRIPE_WEBHOOK_URL === undefined || config.SANDBOX_STRIPE_WEBHOOK_SECRET === undefined
    ? {}
    : {
        stripe: {
          webhookUrl: config.SANDBOX_STRIPE_WEBHOOK_URL,
          webhookSecret: config.SANDBOX_STRIPE_WEBHOOK_SECRET,
          priceIds: config.SANDBOX_STRIPE_PRICE_IDS.split(','),
        },
      }),
});

const server = app.listen(config.PORT, config.SANDBOX_HOST, () => {
  logger.info(
    {
      host: config.SANDBOX_HOST,
      port: config.PORT,
      public_url: config.SANDBOX_PUBLIC_URL,
      stripe:
        config.SANDBOX_STRIPE_WEBHOOK_URL === undefined ? 'off' : { webhook_url: config.SANDBOX_STRIPE_WEBHOOK_URL },
    },
    'network sandbox listening',
  );
});

process.on('SIGTERM', () => {
  logger.info('SIGTERM: closing the sandbox');
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
