import axios, { type AxiosInstance, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import CircuitBreaker from 'opossum';
import { type Logger } from '@svc/logger';
import { ProviderError, type Classification } from '../errors/provider-error.ts';
import { type Network } from '../types.ts';
import { normalizeHeaders, type NetworkResponse } from './network-response.ts';

export type Classifier = (response: NetworkResponse, nowMs: number) => Classification;

export interface BreakerSettings {
  /** How long the breaker stays open before letting a trial call through. */
  resetTimeoutMs: number;
  /** Calls in the rolling window before the error percentage can open it. */
  volumeThreshold: number;
  errorThresholdPercentage: number;
  rollingCountTimeoutMs: number;
}

export interface NetworkClientOptions {
  network: Network;
  baseURL: string;
  timeoutMs: number;
  breaker: BreakerSettings;
  classify: Classifier;
  logger?: Logger | undefined;
  now?: () => number;
}

export interface NetworkClient {
  readonly network: Network;
  /** Sends through the breaker; every failure comes back as a classified `ProviderError`. */
  request<T = unknown>(config: AxiosRequestConfig): Promise<AxiosResponse<T>>;
  readonly breaker: CircuitBreaker<[AxiosRequestConfig], AxiosResponse>;
  readonly axios: AxiosInstance;
}

/** 4xx (429 included) are the caller's or the account's problem: they never trip the breaker. */
const isUserError = (error: unknown): boolean => {
  const status = axios.isAxiosError(error) ? error.response?.status : undefined;
  return status !== undefined && status < 500;
};

/**
 * One axios instance and one opossum breaker per network, so a network that is down fails fast
 * (kind `transient`, no call made) and recovers by itself after `resetTimeoutMs`.
 */
export function createNetworkClient(options: NetworkClientOptions): NetworkClient {
  const now = options.now ?? Date.now;
  const instance = axios.create({
    baseURL: options.baseURL.replace(/\/$/, ''),
    timeout: options.timeoutMs,
    maxRedirects: 0,
  });
  const breaker = new CircuitBreaker<[AxiosRequestConfig], AxiosResponse>((config) => instance.request(config), {
    name: options.network,
    timeout: false,
    resetTimeout: options.breaker.resetTimeoutMs,
    volumeThreshold: options.breaker.volumeThreshold,
    errorThresholdPercentage: options.breaker.errorThresholdPercentage,
    rollingCountTimeout: options.breaker.rollingCountTimeoutMs,
    errorFilter: isUserError,
  });
  breaker.on('open', () => options.logger?.warn({ network: options.network }, 'provider circuit opened'));
  breaker.on('halfOpen', () => options.logger?.info({ network: options.network }, 'provider circuit half-open'));
  breaker.on('close', () => options.logger?.info({ network: options.network }, 'provider circuit closed'));

  const toProviderError = (error: unknown): ProviderError => {
    if (error instanceof ProviderError) return error;
    if ((error as { code?: unknown } | null)?.code === 'EOPENBREAKER') {
      return new ProviderError({
        network: options.network,
        kind: 'transient',
        networkMessage: 'The network is failing; calls are paused until it recovers (circuit open).',
        networkCode: 'circuit_open',
      });
    }
    if (axios.isAxiosError(error)) {
      if (error.response) {
        const response: NetworkResponse = {
          status: error.response.status,
          headers: normalizeHeaders(error.response.headers),
          data: error.response.data,
        };
        return new ProviderError({
          network: options.network,
          status: response.status,
          ...options.classify(response, now()),
        });
      }
      // No cause attached: an AxiosError carries the request config, Authorization header included.
      const timedOut = error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT';
      return new ProviderError({
        network: options.network,
        kind: 'transient',
        networkCode: timedOut ? 'timeout' : (error.code ?? 'network_error'),
        networkMessage: timedOut
          ? `No answer within ${options.timeoutMs} ms.`
          : `The network could not be reached (${error.code ?? 'network error'}).`,
      });
    }
    return new ProviderError({
      network: options.network,
      kind: 'transient',
      networkMessage: error instanceof Error ? error.message : 'Unknown failure.',
    });
  };

  return {
    network: options.network,
    breaker,
    axios: instance,
    async request<T>(config: AxiosRequestConfig): Promise<AxiosResponse<T>> {
      try {
        return (await breaker.fire(config)) as AxiosResponse<T>;
      } catch (error) {
        throw toProviderError(error);
      }
    },
  };
}
