import { type Logger } from '@svc/logger';
import { type ProviderConfig } from '../config.ts';
import { createNetworkClient, type Classifier, type NetworkClient } from './network-client.ts';
import { type Network } from '../types.ts';

/** A network client with the configured timeout and breaker settings; each caller gets its own breaker. */
export function networkClientFromConfig(
  config: ProviderConfig,
  target: { network: Network; baseURL: string; classify: Classifier },
  options: { logger?: Logger | undefined; now: () => number },
): NetworkClient {
  return createNetworkClient({
    ...target,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    logger: options.logger,
    now: options.now,
    breaker: {
      resetTimeoutMs: config.PROVIDER_BREAKER_RESET_MS,
      volumeThreshold: config.PROVIDER_BREAKER_VOLUME_THRESHOLD,
      errorThresholdPercentage: config.PROVIDER_BREAKER_ERROR_PERCENT,
      rollingCountTimeoutMs: 10_000,
    },
  });
}
