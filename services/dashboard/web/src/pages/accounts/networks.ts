import type { PathParams } from '@svc/sdk';

/** The five networks, as the API names them. */
export type Network = PathParams<'startOAuth'>['provider'];

export const NETWORKS: readonly { value: Network; label: string }[] = [
  { value: 'x', label: 'X' },
  { value: 'instagram', label: 'Instagram' },
  { value: 'facebook', label: 'Facebook' },
  { value: 'linkedin', label: 'LinkedIn' },
  { value: 'tiktok', label: 'TikTok' },
];

export const networkLabel = (network: string) => NETWORKS.find((n) => n.value === network)?.label ?? network;
