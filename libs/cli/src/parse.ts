import { InvalidArgumentError } from 'commander';

export const NETWORKS = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const;
export type Network = (typeof NETWORKS)[number];

export function isNetwork(value: string): value is Network {
  return (NETWORKS as readonly string[]).includes(value);
}

/** Commander argument parser: a network name (case-insensitive). */
export function parseProvider(value: string): Network {
  const network = value.toLowerCase();
  if (!isNetwork(network)) throw new InvalidArgumentError(`expected one of ${NETWORKS.join(', ')}`);
  return network;
}

/** Commander argument parser: a whole number of at least 1. */
export function parsePositiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return number;
}

/** Commander parser for repeatable options: every value, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
